// Which of many texts may occur in a string, told from the string's length rather than from how
// many texts there are: each text is filed under its first few characters, and only the texts
// filed under some piece of the string are candidates. Waits use it so that one client's
// thousands of distinct text waits cost a screen update what the new text costs, not one check each.

/** How many leading characters a text is filed under (fewer if it is shorter). */
const GRAM = 3;

export class NeedleIndex<T> {
  private readonly byGram = new Map<string, Set<T>>();

  add(text: string, item: T): void {
    const gram = text.slice(0, GRAM);
    let items = this.byGram.get(gram);
    if (!items) this.byGram.set(gram, (items = new Set()));
    items.add(item);
  }

  delete(text: string, item: T): void {
    const gram = text.slice(0, GRAM);
    const items = this.byGram.get(gram);
    if (!items) return;
    items.delete(item);
    if (items.size === 0) this.byGram.delete(gram);
  }

  /** Every item whose text may occur in `haystack` (a superset: the caller checks each). */
  candidates(haystack: string): Set<T> {
    const out = new Set<T>();
    if (this.byGram.size === 0) return out;
    for (let i = 0; i < haystack.length; i++) {
      for (let n = 1; n <= GRAM && i + n <= haystack.length; n++) {
        const items = this.byGram.get(haystack.slice(i, i + n));
        if (items) for (const item of items) out.add(item);
      }
    }
    return out;
  }
}
