import { useEffect, useState } from 'react';

export type Theme = 'light' | 'dark';
const kKey = 'draforge.theme';

function initialTheme(): Theme {
  try {
    const saved = window.localStorage.getItem(kKey);
    if (saved === 'light' || saved === 'dark') return saved;
  } catch {
    // Storage may be disabled; fall back to the system preference.
  }
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** The colour theme: the user's saved choice, else the system's; applied to <html data-theme>. */
export function useTheme(): [Theme, (t: Theme) => void] {
  const [theme, setTheme] = useState<Theme>(initialTheme);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  const choose = (t: Theme) => {
    setTheme(t);
    try {
      window.localStorage.setItem(kKey, t);
    } catch {
      // Not persisted; the choice still holds for this page.
    }
  };
  return [theme, choose];
}
