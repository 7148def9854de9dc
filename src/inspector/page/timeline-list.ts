/**
 * The timeline as a windowed list: rows of one fixed height, and only those in view (plus a margin) are in the
 * DOM, so ten thousand items cost what forty do. The items' order is ItemOrder's.
 */
import type { TimelineItem } from '../wire.js';
import { shortTime } from './format.js';
import { h } from './h.js';
import { ItemOrder } from './item-order.js';

const ROW_HEIGHT = 28;
const MARGIN_ROWS = 8;

export class TimelineList {
  readonly element: HTMLDivElement;
  readonly #spacer: HTMLDivElement;
  readonly #items = new ItemOrder();
  #selected: string | undefined;
  /** The rows in the DOM, by item id. */
  #drawn = new Map<string, Drawn>();
  #frame = 0;
  readonly #onSelect: (item: TimelineItem) => void;

  constructor(onSelect: (item: TimelineItem) => void) {
    this.#onSelect = onSelect;
    this.#spacer = h('div', { class: 'spacer' });
    this.element = h('div', { class: 'timeline', role: 'list', 'aria-label': 'Timeline, newest first' }, this.#spacer);
    this.element.addEventListener('scroll', () => this.#schedule());
    this.element.addEventListener('click', (event) => {
      const row = (event.target as Element).closest<HTMLElement>('.row');
      const item = row?.dataset.id === undefined ? undefined : this.#items.get(row.dataset.id);
      if (item) this.#onSelect(item);
    });
  }

  get size(): number {
    return this.#items.size;
  }

  /** Replaces every item (a company picked, a reset). */
  replace(items: readonly TimelineItem[]): void {
    this.#items.clear();
    this.#items.merge(items);
    this.element.scrollTop = 0;
    this.render();
  }

  /** Adds or replaces items (see ItemOrder); draws on the next frame. */
  merge(items: readonly TimelineItem[], side: 'newer' | 'older' = 'newer'): void {
    this.#items.merge(items, side);
    this.#schedule();
  }

  select(id: string | undefined): void {
    this.#selected = id;
    this.render();
  }

  #schedule(): void {
    if (this.#frame !== 0) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.render();
    });
  }

  /**
   * Draws the rows in view now. A row already drawn for the same item (and selection) is kept, only moved: a
   * click that starts on a row ends on the same element even if items arrive meanwhile.
   */
  render(): void {
    if (this.#frame !== 0) {
      cancelAnimationFrame(this.#frame);
      this.#frame = 0;
    }
    const total = this.#items.size;
    this.#spacer.style.height = `${total * ROW_HEIGHT}px`;
    const height = this.element.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.element.scrollTop / ROW_HEIGHT) - MARGIN_ROWS);
    const last = Math.min(total, Math.ceil((this.element.scrollTop + height) / ROW_HEIGHT) + MARGIN_ROWS);
    const drawn = new Map<string, Drawn>();
    for (let i = first; i < last; i++) {
      const item = this.#items.at(i)!;
      const selected = item.id === this.#selected;
      const old = this.#drawn.get(item.id);
      const row = old !== undefined && old.item === item && old.selected === selected ? old.row : rowOf(item, selected);
      row.style.transform = `translateY(${i * ROW_HEIGHT}px)`;
      drawn.set(item.id, { item, selected, row });
    }
    for (const [id, old] of this.#drawn) if (drawn.get(id)?.row !== old.row) old.row.remove();
    for (const { row } of drawn.values()) if (row.parentNode !== this.#spacer) this.#spacer.appendChild(row);
    this.#drawn = drawn;
  }
}

interface Drawn {
  readonly item: TimelineItem;
  readonly selected: boolean;
  readonly row: HTMLElement;
}

/** One item as a row: virtual time, kind, title, tags, coloured by its tone. */
export function rowOf(item: TimelineItem, selected = false): HTMLElement {
  return h(
    'div',
    {
      class: `row tone-${item.tone} kind-${item.kind}${selected ? ' selected' : ''}${item.detail ? ' has-detail' : ''}`,
      'data-id': item.id,
      role: 'listitem',
      title: [item.title, item.at, ...item.tags].join(' · '),
    },
    h('span', { class: 'time' }, shortTime(item.at)),
    h('span', { class: 'kind' }, item.kind),
    h('span', { class: 'title' }, item.title),
    h(
      'span',
      { class: 'tags' },
      item.tags.map((tag) => h('span', { class: tag.startsWith('fault') ? 'tag tag-fault' : 'tag' }, tag)),
    ),
  );
}
