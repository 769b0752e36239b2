// A FramePort over the `ws` package: one JSON text message per frame. The port checks
// nothing; the client checks every frame it receives against the tables.

import WebSocket from 'ws';
import type { FramePort } from '@adecore/documents-contracts';

/** An open WebSocket as a FramePort, with a way to close it. */
export interface SocketPort extends FramePort {
    close(): void;
}

/** Opens `url` and answers its port once the socket is open. */
export function openPort(url: string): Promise<SocketPort> {
    return new Promise((resolve, reject) => {
        const socket = new WebSocket(url);
        const listeners = new Set<(frame: unknown) => void>();
        socket.on('message', (data) => {
            let frame: unknown;
            try {
                frame = JSON.parse(data.toString());
            } catch {
                frame = data.toString();
            }
            for (const l of [...listeners]) l(frame);
        });
        const port: SocketPort = {
            send(frame) {
                socket.send(JSON.stringify(frame));
            },
            onFrame(listener) {
                listeners.add(listener);
                return () => listeners.delete(listener);
            },
            close() {
                socket.close();
            },
        };
        socket.once('open', () => resolve(port));
        socket.once('error', reject);
    });
}
