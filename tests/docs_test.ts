/** docs/tools.md is the registry's reference: it must match what `deno task docs` writes now. */

import { TOOLS_DOC_PATH, toolsDoc } from "../scripts/tools_doc.ts";
import { CATALOG } from "../server/catalog.ts";
import { SETTING_ENV_NAMES, USAGE } from "../core/settings.ts";

const root = new URL("../", import.meta.url);

Deno.test("docs/tools.md is what deno task docs writes from the registry", async () => {
  const written = await Deno.readTextFile(new URL(TOOLS_DOC_PATH, root));
  const expected = toolsDoc();
  if (written !== expected) {
    const at = [...expected].findIndex((char, i) => written[i] !== char);
    throw new Error(
      `${TOOLS_DOC_PATH} is stale (first difference at character ${at}): run \`deno task docs\` ` +
        "and commit the file.",
    );
  }
});

Deno.test("docs/tools.md has a section for every tool", async () => {
  const written = await Deno.readTextFile(new URL(TOOLS_DOC_PATH, root));
  const missing = CATALOG.filter((tool) => !written.includes(`\n### ${tool.name}\n`));
  if (missing.length > 0) {
    throw new Error(`no section for ${missing.map((t) => t.name).join(", ")}: run deno task docs`);
  }
});

Deno.test("README's settings table names every flag and variable of --help", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", root));
  const table = readme.slice(readme.indexOf("## Settings"), readme.indexOf("## Troubleshooting"));
  const flags = [...USAGE.matchAll(/--[a-z-]+/g)].map((m) => m[0]);
  const missing = [...new Set([...flags, ...SETTING_ENV_NAMES])]
    .filter((name) => !new RegExp(`[\`\\s]${name}(?![\\w-])`).test(table));
  if (missing.length > 0) throw new Error(`README.md's settings table lacks ${missing.join(", ")}`);
});
