/**
 * Smoke test of a shipped executable (a `deno compile` output): `--version`,
 * `initialize` and `tools/list` over stdio against a real tmux, one tool
 * call, and `--doctor` to prove the permissions baked into the binary are the
 * sandbox (tmux and named variables only). The release workflow runs it on
 * every binary before publishing; `tests/ship_test.ts` runs it wherever
 * `deno compile` works.
 *
 * Usage: deno run --allow-run --allow-read --allow-write --allow-env tests/smoke.ts BINARY
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import config from "../deno.json" with { type: "json" };
import { TmuxFixture } from "./harness.ts";

/** Runs `binary args` to completion; resolves with its exit code and text output. */
export async function runBinary(
  binary: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(binary, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env,
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

function check(condition: boolean, what: string, detail = ""): void {
  if (!condition) throw new Error(`smoke: ${what}${detail ? `\n${detail}` : ""}`);
}

/** Runs every smoke check against `binary`; throws on the first failure. `log` narrates. */
export async function smoke(binary: string, log: (line: string) => void = () => {}): Promise<void> {
  const version = await runBinary(binary, ["--version"]);
  check(
    version.code === 0 && version.stdout.trim() === `tmux-mcp ${config.version}`,
    `--version printed ${JSON.stringify(version.stdout)} (exit ${version.code})`,
    version.stderr,
  );
  log(`--version: ${version.stdout.trim()}`);

  const fixture = await TmuxFixture.start({ session: "smoke" });
  try {
    const transport = new StdioClientTransport({
      command: binary,
      args: ["-S", fixture.socketPath],
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/" },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on(
      "data",
      (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)),
    );
    const client = new Client({ name: "tmux-mcp-smoke", version: "0" });
    try {
      await client.connect(transport);
      const info = client.getServerVersion();
      check(
        info?.name === "tmux-mcp" && info.version === config.version,
        `initialize answered ${JSON.stringify(info)}`,
      );
      log(`initialize: ${info?.name} ${info?.version}`);
      const { tools } = await client.listTools();
      const names = tools.map((tool: { name: string }) => tool.name);
      check(names.includes("list_sessions"), `tools/list lacks list_sessions: ${names.join(",")}`);
      log(`tools/list: ${names.length} tools`);
      const result = await client.callTool({ name: "list_sessions", arguments: {} });
      const sessions = (result.structuredContent as { sessions?: { name: string }[] })?.sessions;
      check(
        !result.isError && sessions?.some((session) => session.name === "smoke") === true,
        `list_sessions did not show the smoke session: ${JSON.stringify(result)}`,
      );
      log("list_sessions: sees the smoke session");
      check(
        stderr.trim().split("\n").length === 1 && stderr.startsWith("tmux-mcp "),
        "the server must write exactly one line to stderr at start",
        stderr,
      );
    } finally {
      await client.close();
    }

    const doctor = await runBinary(binary, ["--doctor", "-S", fixture.socketPath], {
      PATH: "/nonexistent",
    });
    const report = doctor.stdout;
    check(doctor.code === 0, `--doctor exited ${doctor.code}`, report + doctor.stderr);
    for (
      const expected of [
        "compiled binary",
        "permission read, write, net, ffi, sys: not granted (sandboxed)",
        "other programs not",
        "permission env: the ",
        `claude mcp add tmux -- ${binary}`,
      ]
    ) {
      check(report.includes(expected), `--doctor does not report "${expected}"`, report);
    }
    log("--doctor: ready, sandboxed, tmux found without PATH");
  } finally {
    await fixture.close();
  }
}

if (import.meta.main) {
  const binary = Deno.args[0];
  if (!binary) {
    console.error("usage: tests/smoke.ts /path/to/tmux-mcp-binary");
    Deno.exit(2);
  }
  // The binary reports its own path with symlinks resolved (/tmp is one on macOS).
  const absolute = Deno.realPathSync(binary);
  await smoke(absolute, (line) => console.log(`ok  ${line}`));
  console.log(`smoke test passed: ${absolute}`);
}
