// Hand-written (not generated): the documents app's typed client, the agent package's
// ContractClient over this package's tables. No table, name or shape is written here.

import { ContractClient, type ClientOptions, type FramePort } from '@adecore/agent-contracts';
import { parseServerFrameTyped } from './frames.js';
import { DOCUMENTS_EVENT_SCHEMAS, DOCUMENTS_REQUEST_SCHEMAS } from './tables.js';

// What a client of the app needs from the agent package, so it depends on this package alone.
export { RequestError, type FramePort } from '@adecore/agent-contracts';

/** A client of the documents app: every agent request and event, and the app's. */
export type DocumentsClient = ContractClient<typeof DOCUMENTS_REQUEST_SCHEMAS, typeof DOCUMENTS_EVENT_SCHEMAS>;

/** A client for the documents app's tables over `port`. */
export function createDocumentsClient(
    port: FramePort,
    options: Omit<ClientOptions<typeof DOCUMENTS_REQUEST_SCHEMAS, typeof DOCUMENTS_EVENT_SCHEMAS>, 'requests' | 'events' | 'parseFrame'> = {},
): DocumentsClient {
    // Received frames are read in one pass over this package's event table (its own names and
    // the agent's).
    return new ContractClient(port, {
        ...options,
        requests: DOCUMENTS_REQUEST_SCHEMAS,
        events: DOCUMENTS_EVENT_SCHEMAS,
        parseFrame: parseServerFrameTyped,
    });
}
