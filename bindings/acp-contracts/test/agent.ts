// The agent the ACP tests serve (`connectAcpHost`'s handlers): one session; a prompt turn
// plans, reads `notes.txt` through the client, asks for a permission and reports each step as a
// session update; a prompt of `wait` waits until the turn is cancelled (`session/cancel`) or
// the request is (its signal). Not a test file: the tests import it.

import { ErrorCode, type AcpEventPayload, type AcpHostHandlers, type connectAcpHost } from '@adecore/acp-contracts';

/** A session update, as the client hears it. */
export type Update = AcpEventPayload<'session/update'>['update'];

/** The `$/cancel_request` ACP answers every cancelled request after: -32800. */
export const CANCEL = { method: '$/cancel_request', answer: { code: ErrorCode.RequestCancelled, message: 'Request cancelled' } } as const;

/** The agent's handlers over its connection `conn`, and `cancelTurn`, what its `session/cancel` listener calls. */
export function agent(conn: () => ReturnType<typeof connectAcpHost>): { handlers: AcpHostHandlers; cancelTurn: (sessionId: string) => void } {
    const turns = new Map<string, () => void>();
    const update = (sessionId: string, u: Update) => conn().notify('session/update', { sessionId, update: u });
    const handlers: AcpHostHandlers = {
        initialize: async (p) => ({ protocolVersion: p.protocolVersion, agentCapabilities: { loadSession: false }, agentInfo: { name: 'test-agent', version: '1.0.0' } }),
        'session/new': async () => ({ sessionId: 'session-1' }),
        'session/prompt': async (p, { signal }) => {
            const first = p.prompt[0];
            if (first?.type === 'text' && first.text === 'wait') {
                const how = await new Promise<string>((resolve) => {
                    turns.set(p.sessionId, () => resolve('turn'));
                    signal.addEventListener('abort', () => resolve('signal'));
                });
                if (how === 'signal') throw signal.reason;
                return { stopReason: 'cancelled' };
            }
            await update(p.sessionId, { sessionUpdate: 'plan', entries: [{ content: 'read the notes', priority: 'high', status: 'in_progress' }] });
            await update(p.sessionId, { sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'Read notes.txt', kind: 'read', status: 'pending' });
            const file = await conn().request('fs/read_text_file', { sessionId: p.sessionId, path: '/work/notes.txt', line: 1, limit: 10 });
            await update(p.sessionId, { sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: file.content } }] });
            const permission = await conn().request('session/request_permission', {
                sessionId: p.sessionId,
                toolCall: { toolCallId: 'call-2', title: 'Edit notes.txt', kind: 'edit' },
                options: [
                    { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
                    { optionId: 'no', name: 'Reject', kind: 'reject_once' },
                ],
            });
            const chosen = permission.outcome.outcome === 'selected' ? permission.outcome.optionId : 'cancelled';
            await update(p.sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `read ${file.content.length} characters; edit: ${chosen}` } });
            return { stopReason: 'end_turn' };
        },
    };
    return { handlers, cancelTurn: (sessionId) => turns.get(sessionId)?.() };
}
