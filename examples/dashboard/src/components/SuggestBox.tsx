import { useEffect, useState } from 'react';

/**
 * A search box over a long list of names (10,000 nodes or pools) that suggests at most `max`
 * matching names in a datalist, so the DOM never holds the whole list. A name applies when it is
 * typed or picked in full, when Enter is pressed (whatever was typed), or when the box is emptied.
 */
export function SuggestBox({ names, value, onChange, label, listId, placeholder, max = 30 }: {
  names: readonly string[];
  value: string;
  onChange: (name: string | undefined) => void;
  label: string;
  listId: string;
  placeholder?: string;
  max?: number;
}) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const needle = text.trim().toLowerCase();
  const suggestions: string[] = [];
  for (const n of names) {
    if (suggestions.length >= max) break;
    if (n.toLowerCase().includes(needle)) suggestions.push(n);
  }
  return (
    <>
      <input
        type="search"
        aria-label={label}
        list={listId}
        placeholder={placeholder}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value === '') onChange(undefined);
          else if (names.includes(e.target.value)) onChange(e.target.value);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') onChange(text.trim() || undefined);
        }}
      />
      <datalist id={listId}>
        {suggestions.map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
    </>
  );
}
