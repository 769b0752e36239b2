// ajv's draft 2020-12 class, from the repository's workspace install (`npm ci` at the root,
// from its committed lock: the generated packages' dev dependency). No package of its own:
// tests/official adds no dependency.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('../../', import.meta.url);

/** Where ajv may be installed, in order: the workspace's root, then a package (installed alone). */
export const AJV_PACKAGES = ['.', 'bindings/mcp-contracts', 'bindings/acp-contracts', 'bindings/agent-contracts'];

/** The package directory (a URL) whose node_modules holds ajv, or null. */
export function ajvPackage() {
    for (const dir of AJV_PACKAGES) {
        const url = new URL(`${dir}/`, ROOT);
        if (existsSync(new URL('node_modules/ajv/package.json', url))) return url;
    }
    return null;
}

/** `Ajv2020` (ajv/dist/2020.js). */
export async function ajv2020() {
    const pkg = ajvPackage();
    if (pkg === null) {
        throw new Error('no ajv installed: run npm ci at the repository\'s root');
    }
    const require = createRequire(new URL('package.json', pkg));
    const mod = await import(pathToFileURL(require.resolve('ajv/dist/2020.js')).href);
    return mod.Ajv2020 ?? mod.default;
}
