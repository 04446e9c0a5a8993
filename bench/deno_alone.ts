/**
 * Deno alone, with the start task's flags: a bare run, or one that only
 * loads some of our modules. The floors the benchmark sets start-up and
 * memory against.
 *
 * @module
 */

import { serverArgv } from "../tests/harness.ts";
import { statusKiB } from "./fixture.ts";
import { time } from "./stats.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** What {@link denoAlone} measured, each over its `starts` runs. */
export interface Alone {
  /** Spawn to exit of the script. */
  exitMs: number[];
  /** Spawn to the first line the same script prints once its work is done (as a server answers). */
  readyMs: number[];
  /** The peak RSS of the last run, read at that line. */
  peakKiB: number;
}

/**
 * A `deno run` with the start task's flags of a script that only imports
 * `modules` and runs `code` (nothing: a bare run). The first of `starts + 1`
 * runs of each kind only warms the module cache.
 */
export async function denoAlone(
  dir: string,
  name: string,
  starts: number,
  modules: string[] = [],
  code = "",
): Promise<Alone> {
  const argv = serverArgv();
  const at = argv.findIndex((arg) => arg.endsWith("/main.ts"));
  const command = (script: string, stdin: "null" | "piped") =>
    new Deno.Command(argv[0], {
      // -P=server is looked up in the deno.json next to the script: name ours.
      args: [...argv.slice(1, at), `--config=${ROOT}deno.json`, script, ...argv.slice(at + 1)],
      cwd: ROOT,
      stdin,
      stdout: "piped",
      stderr: "null",
    });
  const imports = modules.map((m) => `import "${ROOT}${m}";\n`).join("") + code;
  await Deno.writeTextFile(`${dir}/${name}.ts`, imports);
  await Deno.writeTextFile(
    `${dir}/${name}_idle.ts`,
    `${imports}console.log("ready");\nawait Deno.stdin.readable.pipeTo(new WritableStream());\n`,
  );
  const out: Alone = { exitMs: [], readyMs: [], peakKiB: NaN };
  for (let i = 0; i <= starts; i++) {
    const took = await time(() => command(`${dir}/${name}.ts`, "null").output());
    if (i > 0) out.exitMs.push(took);
  }
  for (let i = 0; i <= starts; i++) {
    const began = performance.now();
    const idle = command(`${dir}/${name}_idle.ts`, "piped").spawn();
    const ready = idle.stdout.getReader();
    await ready.read(); // "ready": started and idle
    if (i > 0) out.readyMs.push(performance.now() - began);
    if (i === starts) out.peakKiB = await statusKiB(idle.pid, "VmHWM");
    await ready.cancel();
    await idle.stdin.close();
    await idle.status;
  }
  return out;
}
