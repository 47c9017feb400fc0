// Light or dark: the system's `prefers-color-scheme` until the person presses the header's
// toggle; their choice is then kept in localStorage (index.html applies it before the first
// paint) and wins over the system's.

const KEY = "olg.ui.theme";
type Theme = "light" | "dark";

const systemDark = window.matchMedia("(prefers-color-scheme: dark)");

function stored(): Theme | null {
  try {
    const value = localStorage.getItem(KEY);
    return value === "dark" || value === "light" ? value : null;
  } catch {
    return null; // storage refused (a locked-down browser): follow the system
  }
}

/** The theme the page shows now. */
export function currentTheme(): Theme {
  return stored() ?? (systemDark.matches ? "dark" : "light");
}

/** `data-theme` always names the theme shown (styles.css has one dark palette, for it). */
function apply(button: HTMLElement): void {
  const theme = currentTheme();
  document.documentElement.dataset.theme = theme;
  button.setAttribute("aria-pressed", String(theme === "dark"));
}

/** Wire the header's toggle: pressed means dark. */
export function setUpThemeToggle(button: HTMLElement): void {
  apply(button);
  button.addEventListener("click", () => {
    const next: Theme = currentTheme() === "dark" ? "light" : "dark";
    try {
      localStorage.setItem(KEY, next);
    } catch {
      document.documentElement.dataset.theme = next; // not kept, but shown
      button.setAttribute("aria-pressed", String(next === "dark"));
      return;
    }
    apply(button);
  });
  systemDark.addEventListener("change", () => apply(button));
}
