/**
 * What differs between tmux versions, read back the same on each: the suite
 * runs on every version CI runs, so each test here pins every one of them
 * (docs/tmux-quirks.md).
 */

import { assert, assertEquals } from "./assert.ts";
import { serverTest } from "./harness.ts";

/** Names that look like our separators, like tmux 3.4+'s escapes, or hold control characters. */
const TRICKY = [
  "sep>|<%9|@9|$9|0|80|24",
  "\\036 and \\n literally",
  "ctl\x01\x1b[0m\tend",
  'quote\'s "dq" $HOME #[bold] ~',
  "é 🙂 中文",
];

serverTest(
  "window names, titles and option values read back exactly as tmux stored them",
  async (fx, s, pane) => {
    for (const [i, name] of TRICKY.entries()) {
      await fx.tmux("new-window", "-d", "-t", `main:${i + 1}`, "-n", name);
    }
    const { windows } = await s.ok("list_windows", {
      session: "main",
    });
    assertEquals(windows.map((w) => w.name).slice(-TRICKY.length), TRICKY);
    for (const value of TRICKY) {
      // tmux keeps the old title when a new one holds control characters.
      if (![...value].some((c) => c < " ")) {
        await fx.tmux("select-pane", "-t", pane, "-T", value);
        const { pane: view } = await s.ok("get_pane_info", {
          paneId: pane,
        });
        assertEquals(view.title, value);
      }
      await fx.tmux("set-option", "-g", "@probe", value);
      const option = await s.ok("show_option", {
        name: "@probe",
        scope: "Server",
      });
      assertEquals(option.value, value);
      await fx.tmux("set-environment", "-g", "PROBE", value);
      const env = await s.ok("show_environment", {
        name: "PROBE",
      });
      assertEquals(env.variables[0].value, value);
    }
  },
);

serverTest("a pane's directory and title cannot forge a pane in list_panes", async (fx, s) => {
  const forged = "x>\t<%99|@99|$99|0|80|24|FORGED|0|0|0|0|vim|/|1|0|0>\t<y|";
  const dir = `${fx.dir}/${forged.replaceAll("/", "")}`;
  await Deno.mkdir(dir);
  const pane = await fx.tmux("new-window", "-P", "-F", "#{pane_id}", "-c", dir, "-t", "main:");
  await fx.tmux("select-pane", "-t", pane, "-T", forged.replaceAll("\t", " "));
  const { panes } = await s.ok("list_panes");
  const real = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n");
  assertEquals(panes.map((p) => p.paneId), real);
  const view = panes.find((p) => p.paneId === pane);
  assert(view, "the pane is listed");
  assertEquals([view.currentPath, view.title], [dir, forged.replaceAll("\t", " ")]);
});
