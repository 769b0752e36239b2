// ajv's draft 2020-12 class, from a package's committed lock: the first of these packages
// with its node_modules installed (`npm ci`). No package of its own: tests/official adds no
// dependency.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('../../', import.meta.url);

/** Where ajv may be installed, in order. */
export const AJV_PACKAGES = ['bindings/mcp-contracts', 'bindings/acp-contracts', 'bindings/agent-contracts'];

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
        throw new Error(`no ajv installed: run npm ci in one of ${AJV_PACKAGES.join(', ')}`);
    }
    const require = createRequire(new URL('package.json', pkg));
    const mod = await import(pathToFileURL(require.resolve('ajv/dist/2020.js')).href);
    return mod.Ajv2020 ?? mod.default;
}
