// Hand-written (not generated): the FramePort the spec names, and an in-memory pair of ports.
// Typed against the generated frame types, so a change of envelope fails the build here. The
// frames it sends are a parameter: the agent's by default, JSON texts for a JSON-RPC connection
// (`FramePort<string>`, the runtime's `RpcPort`).

import type { Request, ServerFrame } from './schemas.js';

/**
 * Two ends that pass frames, such as a MessagePort between a window and the process that runs
 * the chats. A frame arrives as `unknown` because the receiving end checks it. `onFrame`
 * answers the function that stops listening. The port knows nothing of connecting, closing,
 * timeouts or who is on the other end. `F` is what it sends: the agent's frames by default.
 */
export interface FramePort<F = Request | ServerFrame> {
    send(frame: F): void;
    onFrame(listener: (frame: unknown) => void): () => void;
}

/**
 * Two connected in-memory ports: what one sends, the other receives, asynchronously and as a
 * structured clone (as a MessagePort passes it). For tests and for a host and a client in one
 * process.
 */
export function createPortPair<F = Request | ServerFrame>(): [FramePort<F>, FramePort<F>] {
    const listeners: [Set<(frame: unknown) => void>, Set<(frame: unknown) => void>] = [new Set(), new Set()];
    const end = (mine: 0 | 1): FramePort<F> => ({
        send(frame) {
            const copy = structuredClone(frame);
            queueMicrotask(() => {
                for (const l of [...listeners[1 - mine]!]) l(copy);
            });
        },
        onFrame(listener) {
            listeners[mine].add(listener);
            return () => listeners[mine].delete(listener);
        },
    });
    return [end(0), end(1)];
}
