// Loads boltz-bolt12 (Boltz's BOLT12 parser: LDK's offer and invoice code compiled to WebAssembly), the independent
// decoder the BOLT12 codec is checked against. Its entry module imports the .wasm file as an ES module, which Node
// 20 cannot do without a flag, so the module is instantiated here from the package's own glue code.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Glue = typeof import('boltz-bolt12');

let loaded: Promise<Glue> | undefined;

export function boltzBolt12(): Promise<Glue> {
  loaded ??= (async () => {
    const dir = dirname(createRequire(import.meta.url).resolve('boltz-bolt12/package.json'));
    const glue = (await import(pathToFileURL(join(dir, 'boltz_bolt12_bg.js')).href)) as Glue & {
      __wbg_set_wasm(exports: WebAssembly.Exports): void;
    };
    const module = await WebAssembly.compile(await readFile(join(dir, 'boltz_bolt12_bg.wasm')));
    const imports: Record<string, Record<string, unknown>> = {};
    for (const { module: from, name } of WebAssembly.Module.imports(module)) {
      (imports[from] ??= {})[name] = (glue as unknown as Record<string, unknown>)[name];
    }
    const instance = await WebAssembly.instantiate(module, imports as WebAssembly.Imports);
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as (() => void) | undefined)?.();
    return glue;
  })();
  return loaded;
}
