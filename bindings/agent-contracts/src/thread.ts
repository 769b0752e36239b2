// Hand-written (not generated): the thread reducer and reconnect-by-`since`, over the
// generated types. A change to ChatEvent, ChatItem or the attach result fails the build here.

import type { AgentClient } from './client.js';
import type { AttachResult, Bookmark, ChatEvent, ChatInfo, ChatItem, HistoryPosition, Visual } from './schemas.js';
import type { AgentEventPayload } from './tables.js';

/** A chat's thread as a client shows it. */
export interface ThreadState {
    info: ChatInfo;
    /** The items, in thread order. */
    items: ChatItem[];
    /** The last seq applied: sent as `since` on a reconnect. */
    seq?: number;
    history?: HistoryPosition;
    pending?: ChatItem[];
    bookmarks?: Bookmark[];
    visuals?: Visual[];
}

/**
 * The thread a chat.attach answer gives. A snapshot replaces the thread (appending it would
 * duplicate the conversation); a `resumed` answer keeps `previous` and its items, and the
 * missed chat.event frames follow. `previous` is the thread whose seq the attach sent as
 * `since`: only then can the answer be resumed. A host that predates the `resumed` flag
 * resumes, as the spec words it, with an empty `items`. Never resumed across epochs: an
 * answer whose seq is below `since` or of another epoch (`seqEpoch`: another chat, or a host
 * that lost it) is a chat that started over, and its thread is the snapshot's.
 */
export function threadFromAttach(result: AttachResult, previous?: ThreadState): ThreadState {
    const since = previous?.seq;
    const sameEpoch =
        result.seq === undefined || since === undefined || (result.seq >= since && seqEpoch(result.seq) === seqEpoch(since));
    const resumed = sameEpoch && (result.resumed ?? result.items.length === 0);
    if (previous !== undefined && since !== undefined && resumed) {
        return {
            ...previous,
            info: result.info,
            seq: previous.seq ?? result.seq,
            pending: result.pending ?? previous.pending,
            bookmarks: result.bookmarks ?? previous.bookmarks,
            visuals: result.visuals ?? previous.visuals,
        };
    }
    return {
        info: result.info,
        items: [...result.items],
        seq: result.seq,
        history: result.history,
        pending: result.pending,
        bookmarks: result.bookmarks,
        visuals: result.visuals,
    };
}

/** The epoch a seq carries: the part above 2^32 (see `Seq` in the schema). */
export function seqEpoch(seq: number): number {
    return Math.floor(seq / 2 ** 32);
}

/** Where an item with this historyIndex goes: before the first item placed after it. */
function placeOf(items: readonly ChatItem[], item: ChatItem): number {
    if (item.historyIndex === undefined) return items.length;
    const at = items.findIndex((x) => x.historyIndex !== undefined && x.historyIndex > item.historyIndex!);
    return at === -1 ? items.length : at;
}

/**
 * Append delta text, as the spec says: to a reply's or a thought's text, or to the output of a
 * running tool. Other items do not grow (the Rust reducer agrees).
 */
function appendText(item: ChatItem, text: string): ChatItem {
    switch (item.kind) {
        case 'reply':
        case 'thought':
            return { ...item, text: item.text + text };
        case 'tool':
            return { ...item, output: (item.output ?? '') + text };
        default:
            return item;
    }
}

/**
 * Apply one ChatEvent: item inserts or replaces by id (placed by historyIndex), delta appends
 * text, info replaces the ChatInfo, reset replaces the info and the whole thread. With a `seq`
 * at or below the last one applied, the event was already applied and is skipped. Pure: answers
 * a new state.
 */
export function applyChatEvent(state: ThreadState, event: ChatEvent, seq?: number): ThreadState {
    if (seq !== undefined && state.seq !== undefined && seq <= state.seq) return state;
    const next: ThreadState = { ...state, seq: seq ?? state.seq };
    switch (event.type) {
        case 'item': {
            const at = state.items.findIndex((x) => x.id === event.item.id);
            const items = [...state.items];
            if (at === -1) items.splice(placeOf(items, event.item), 0, event.item);
            else items[at] = event.item;
            return { ...next, items };
        }
        case 'delta':
            return { ...next, items: state.items.map((x) => (x.id === event.itemId ? appendText(x, event.text) : x)) };
        case 'info':
            return { ...next, info: event.info };
        case 'reset':
            return { ...next, info: event.info, items: [...event.items] };
    }
}

/**
 * One attached chat kept up to date over an {@link AgentClient}: attach, apply chat.event,
 * and on a reconnect attach again with `since` = the last seq applied.
 */
export class ChatThread {
    private current: ThreadState | undefined;
    /** chat.event frames that arrive while an attach is in flight, applied after its answer. */
    private buffered: AgentEventPayload<'chat.event'>[] | undefined;
    private readonly stop: () => void;

    private readonly onChange: (state: ThreadState) => void;
    private readonly historyLimit: number | undefined;

    /**
     * `options.state` is a thread kept from an earlier connection: the first attach then sends
     * its seq as `since` (a reconnect over a new port and client).
     */
    constructor(
        private readonly client: AgentClient,
        readonly chatId: string,
        options: { onChange?: (state: ThreadState) => void; historyLimit?: number; state?: ThreadState } = {},
    ) {
        this.onChange = options.onChange ?? (() => {});
        this.historyLimit = options.historyLimit;
        this.current = options.state;
        this.stop = client.on('chat.event', (e) => {
            if (e.chatId !== this.chatId) return;
            if (this.buffered) this.buffered.push(e);
            else if (this.current) this.set(applyChatEvent(this.current, e.event, e.seq));
        });
    }

    /** The thread as last applied, once attached. */
    get state(): ThreadState | undefined {
        return this.current;
    }

    /**
     * Attach, or attach again after a reconnect: sends the last seq applied as `since`, and
     * replaces the thread with a snapshot unless the host resumes.
     */
    async attach(): Promise<ThreadState> {
        this.buffered = [];
        try {
            const since = this.current?.seq;
            const result = await this.client.request('chat.attach', {
                chatId: this.chatId,
                ...(since !== undefined ? { since } : {}),
                ...(this.historyLimit !== undefined ? { historyLimit: this.historyLimit } : {}),
            });
            let state = threadFromAttach(result, this.current);
            for (const e of this.buffered) state = applyChatEvent(state, e.event, e.seq);
            this.buffered = undefined;
            this.set(state);
            return state;
        } finally {
            this.buffered = undefined;
        }
    }

    /** Stop listening (does not detach on the host; send chat.detach for that). */
    dispose(): void {
        this.stop();
    }

    private set(state: ThreadState): void {
        this.current = state;
        this.onChange(state);
    }
}
