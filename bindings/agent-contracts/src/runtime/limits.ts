// The parameters of every generated length limit: a limit is checked only on a value of its
// type (docs/wire-semantics.md). Hand-written, part of `@adecore/agent-contracts/runtime`.

import type { z } from 'zod';

/** The parameters a `.min` or `.max` takes. */
type LengthParams = z.core.$ZodCheckMinLengthParams & z.core.$ZodCheckMaxLengthParams;

/**
 * A string's `.min` and `.max`, checked only on a string. Zod 4 runs a length check on any
 * value that has a `length` (an array, an object with a `length` key), adding an issue to the
 * type's own, or throwing for a `length` that converts to no number; the value's type is
 * the one issue, on this side as on the Rust side. (`when` is what Zod's own checks are
 * built with; its parameter types leave it out.)
 */
export const onString = { when: (p: z.core.ParsePayload) => typeof p.value === 'string' } as unknown as LengthParams;

/** An array's `.min` and `.max`, checked only on an array (see {@link onString}). */
export const onArray = { when: (p: z.core.ParsePayload) => Array.isArray(p.value) } as unknown as LengthParams;
