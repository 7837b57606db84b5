/** The find boxes' matching (the start page's workflows, the canvas's nodes): plain words, no patterns. */

/** Whether a text holds every word of `query`, case aside (every text does for a query of no words). */
export function holdsWords(query: string): (text: string) => boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return (text) => {
    const lower = text.toLowerCase();
    return words.every((word) => lower.includes(word));
  };
}

/** The items `first` picks, then the rest, each in their order. */
export function ahead<T>(items: readonly T[], first: (item: T) => boolean): T[] {
  return [...items.filter(first), ...items.filter((item) => !first(item))];
}
