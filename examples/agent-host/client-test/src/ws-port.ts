// The spec's FramePort over the `ws` package: JSON text out, parsed JSON in. A message that is
// not JSON is handed on as its text, for the client to refuse like any bad frame.

import WebSocket from 'ws';
import type { FramePort } from '@adecore/agent-contracts';

/**
 * Opens a WebSocket and answers it with the FramePort over it, once it is open. The host's
 * client token goes as `Authorization: Bearer`.
 */
export function connectPort(url: string, token?: string): Promise<{ port: FramePort; socket: WebSocket }> {
    return new Promise((resolve, reject) => {
        const headers: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` };
        const socket = new WebSocket(url, { headers });
        const port: FramePort = {
            send: (frame) => socket.send(JSON.stringify(frame)),
            onFrame(listener) {
                const onMessage = (data: WebSocket.RawData) => {
                    const text = data.toString();
                    let frame: unknown = text;
                    try {
                        frame = JSON.parse(text);
                    } catch {}
                    listener(frame);
                };
                socket.on('message', onMessage);
                return () => socket.off('message', onMessage);
            },
        };
        socket.once('open', () => resolve({ port, socket }));
        socket.once('error', reject);
    });
}
