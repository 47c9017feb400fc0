// Bundles one generative UI file (`ui` of the config) into a browser script that the JS SDK's
// `LoadExternalComponent` loads (genui/build.py runs it; see docs/server.md).
//
//   node bundle.mjs '{"esbuild": ".../esbuild/lib/main.js", "entry": "/abs/ui.tsx",
//                     "global": "__LGUI_agent", "outdir": "/abs/out", "shared": [...]}'
//
// The script defines the global `global` with `render(componentName, shadowRootId)`: it adds
// an element to the shadow root the SDK made and hands it, with the component the file's
// default export names, to the SDK's store (`Symbol.for("LGUI_EXT_STORE")`). React, the SDK
// and the `shared` packages are not bundled: the page provides them through
// `Symbol.for("LGUI_REQUIRE")`. CSS the file imports lands in a .css beside the script.
// Prints the files the bundle was made from (for the build cache) as JSON on stdout.
import * as path from "node:path";
import { pathToFileURL } from "node:url";

const options = JSON.parse(process.argv[2]);
const esbuild = await import(pathToFileURL(options.esbuild).href);

const shared = [
  "react",
  "react-dom",
  "@langchain/langgraph-sdk",
  ...options.shared,
];
const escape = (name) => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
// A shared package covers its subpaths: react/jsx-runtime, @langchain/langgraph-sdk/react-ui.
const sharedPattern = new RegExp(`^(${shared.map(escape).join("|")})(/.*)?$`);

const fromPage = {
  name: "olg-shared-from-page",
  setup(build) {
    build.onResolve({ filter: sharedPattern }, (args) => ({
      path: args.path,
      namespace: "olg-shared",
    }));
    build.onLoad({ filter: /.*/, namespace: "olg-shared" }, (args) => ({
      contents: `module.exports = globalThis[Symbol.for("LGUI_REQUIRE")](${JSON.stringify(args.path)});`,
      loader: "js",
    }));
  },
};

const entry = `
import components from ${JSON.stringify(options.entry)};

export function render(name, shadowRootId) {
  const host = document.getElementById(shadowRootId);
  const root = host.shadowRoot ?? host.attachShadow({ mode: "open" });
  const component = components[name];
  if (component == null) {
    console.error("no generative UI component " + JSON.stringify(name) + " in " + ${JSON.stringify(path.basename(options.entry))});
    return;
  }
  const target = document.createElement("div");
  root.appendChild(target);
  globalThis[Symbol.for("LGUI_EXT_STORE")].respond(shadowRootId, component, target);
}
`;

try {
  const result = await esbuild.build({
    stdin: {
      contents: entry,
      resolveDir: path.dirname(options.entry),
      sourcefile: "olg-generative-ui-entry.jsx",
      loader: "jsx",
    },
    outfile: path.join(options.outdir, "entrypoint.js"),
    bundle: true,
    format: "iife",
    globalName: options.global,
    platform: "browser",
    target: "es2020",
    jsx: "automatic",
    minify: true,
    define: { "process.env.NODE_ENV": '"production"' },
    plugins: [fromPage],
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs)
    .filter((name) => !name.includes(":") && !name.startsWith("<"))
    .map((name) => path.resolve(name));
  process.stdout.write(JSON.stringify({ inputs }));
} catch (error) {
  const messages = (error.errors ?? []).map(
    (e) => (e.location ? `${e.location.file}:${e.location.line}: ` : "") + e.text,
  );
  process.stderr.write((messages.length ? messages.join("; ") : String(error)) + "\n");
  process.exit(1);
}
