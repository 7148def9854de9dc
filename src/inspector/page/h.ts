/**
 * The page's one DOM helper: h('div', { class: 'row', onclick: f }, 'text', child). Text always goes in as text
 * nodes (never HTML), so nothing a server or a client sent can become markup.
 */
export type Child = Node | string | number | null | undefined | false | readonly Child[];
type Props = Readonly<Record<string, unknown>>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function')
      element.addEventListener(name.slice(2), value as EventListener);
    else if (name === 'class') element.className = String(value);
    // Properties, not attributes: a field's value never shows in the markup.
    else if (name === 'value' || name === 'checked' || name === 'disabled')
      (element as unknown as Record<string, unknown>)[name] = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child as readonly Child[]);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces every child of `parent`. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}
