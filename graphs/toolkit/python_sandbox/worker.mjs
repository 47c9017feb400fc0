// One warm CPython (Pyodide) in a worker thread; sandbox.mjs owns it and may terminate it.
// Each request runs in fresh globals; only text crosses back. See docs/agents/python_sandbox.md.
import { constants } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { loadPyodide } from "pyodide";

// Emscripten's NODEFS reads the file flags through process.binding, which Node's permission
// model forbids; it only needs the public fs constants.
process.binding = (name) => {
  if (name === "constants") return { fs: constants };
  throw new Error(`process.binding(${name}) is not available in the sandbox`);
};

const maxOutput = workerData.maxOutput;
let out = "";
let cut = false;
const decoder = new TextDecoder();
const write = (bytes) => {
  if (!cut) {
    out += decoder.decode(bytes, { stream: true });
    if (out.length > maxOutput) {
      out = out.slice(0, maxOutput);
      cut = true;
    }
  }
  return bytes.length;
};

const pyodide = await loadPyodide({ indexURL: workerData.indexURL });
pyodide.setStdout({ write });
pyodide.setStderr({ write });
pyodide.setStdin({ error: true });

// The Python side: compile and run a snippet in fresh globals, REPL-style (the last
// expression's repr is the result), and reduce a failure to its last lines.
const run = pyodide.runPython(`
import sys, traceback
from pyodide.code import eval_code

# The bridges to the JavaScript host are removed from what user code can import.
for _name in ("subprocess", "multiprocessing", "js", "pyodide_js", "_pyodide_core", "pyodide.ffi", "pyodide.http",
              "pyodide.code", "pyodide.webloop", "micropip"):
    sys.modules[_name] = None

import os as _os

def _no_processes(*args, **kwargs):
    raise PermissionError("the sandbox runs no other programs")

for _name in ("system", "popen", "fork", "forkpty", "execv", "execve", "spawnv", "spawnve",
              "posix_spawn", "posix_spawnp", "kill"):
    if hasattr(_os, _name):
        setattr(_os, _name, _no_processes)

def _olg_run(code):
    scope = {"__name__": "__main__"}
    try:
        value = eval_code(code, scope)
    except BaseException as exc:  # the model's code: every failure is its answer
        lines = traceback.format_exception(exc)
        user = [l for l in lines if '<exec>' in l or not l.startswith('  File')]
        return False, None, "".join(user[-6:]).strip()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return True, (None if value is None else repr(value)), None

_olg_run
`);

// Nothing of Node stays reachable from the worker's global scope, and the Emscripten file
// system cannot mount host folders. (Node's permission model, set by sandbox.mjs, is the
// outer wall: no host files beyond Pyodide's own, no child processes.)
for (const name of ["process", "require", "module", "fetch", "WebSocket", "XMLHttpRequest",
  "EventSource", "Buffer", "importScripts", "navigator", "Worker", "SharedWorker",
  "BroadcastChannel", "MessageChannel", "caches", "indexedDB", "WebAssembly"]) {
  try {
    delete globalThis[name];
  } catch {
    globalThis[name] = undefined;
  }
}
if (pyodide.FS?.filesystems) delete pyodide.FS.filesystems.NODEFS;
pyodide.mountNodeFS = undefined;
pyodide.loadPackage = undefined;
pyodide.loadPackagesFromImports = undefined;

parentPort.on("message", ({ id, code }) => {
  out = "";
  cut = false;
  let reply;
  try {
    const [ok, result, error] = run(code).toJs();
    reply = { id, ok, result: result ?? null, error: error ?? null };
  } catch (exc) {
    // Past Python's own error handling: the interpreter is not to be trusted again.
    reply = { id, ok: false, result: null, error: String(exc).slice(0, 2000), broken: true };
  }
  reply.stdout = out;
  reply.truncated = cut;
  if (reply.result && reply.result.length > maxOutput) {
    reply.result = reply.result.slice(0, maxOutput);
    reply.truncated = true;
  }
  parentPort.postMessage(reply);
});
parentPort.postMessage({ ready: true });
