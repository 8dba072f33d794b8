/**
 * The seven site themes as the Site screen previews them: the same colours as
 * assets/site/theme-*.css (light and dark), drawn as a small page without leaving the app.
 */
export interface ThemeSwatch {
  label: string;
  note: string;
  light: { bg: string; surface: string; border: string; text: string; muted: string; accent: string; accentSoft: string; header: string; headerText: string };
  dark: ThemeSwatch["light"];
  serif?: boolean;
}

const palette = (bg: string, surface: string, border: string, text: string, muted: string, accent: string, accentSoft: string, header = bg, headerText = text) => ({
  bg,
  surface,
  border,
  text,
  muted,
  accent,
  accentSoft,
  header,
  headerText,
});

export const SITE_THEMES: Record<string, ThemeSwatch> = {
  default: {
    label: "Default",
    note: "Blue accents on white",
    light: palette("#ffffff", "#f6f7f9", "#e4e7ec", "#1f2328", "#667085", "#2563eb", "#eaf1ff"),
    dark: palette("#0f1115", "#171a21", "#2a2f3a", "#e6e8ec", "#9199a8", "#6ea0ff", "#1b2740"),
  },
  dark: {
    label: "Dark",
    note: "Dim slate by day, near-black at night",
    light: palette("#1b1e26", "#232733", "#323847", "#e4e6ee", "#9aa1b5", "#a78bfa", "#2d2748"),
    dark: palette("#0a0b0f", "#13151c", "#242834", "#e6e7ee", "#8a90a3", "#a78bfa", "#1f1a35"),
  },
  forest: {
    label: "Forest",
    note: "Greens on warm paper, serif headings",
    light: palette("#fbfaf5", "#f1efe4", "#dfdccb", "#1f2a22", "#5f6f62", "#2f6f4e", "#e3efe6"),
    dark: palette("#0f1512", "#16201b", "#26352d", "#e1eae3", "#8fa596", "#6fcf97", "#183426"),
    serif: true,
  },
  rose: {
    label: "Rose",
    note: "Soft pinks, rounded corners",
    light: palette("#fffafb", "#fbf0f3", "#f1dde3", "#2b1d23", "#765c67", "#be185d", "#fde7f0"),
    dark: palette("#151013", "#1f161b", "#35232c", "#f0e4e8", "#b093a0", "#f472b6", "#3a1628"),
  },
  amber: {
    label: "Amber",
    note: "Warm amber and cream",
    light: palette("#fffdf7", "#fbf4e4", "#efe2c4", "#2a2214", "#7c6a48", "#a3480a", "#fdf0d5"),
    dark: palette("#14110b", "#1e1910", "#3a2f1b", "#efe6d3", "#b39f78", "#fbbf24", "#3a2a0c"),
  },
  minimal: {
    label: "Minimal",
    note: "Black on white, serif text",
    light: palette("#ffffff", "#f7f7f7", "#e6e6e6", "#111111", "#6b6b6b", "#111111", "#f0f0f0"),
    dark: palette("#0b0b0b", "#151515", "#262626", "#ededed", "#9a9a9a", "#f2f2f2", "#1f1f1f"),
    serif: true,
  },
  corporate: {
    label: "Corporate",
    note: "Navy header band, sober blues",
    light: palette("#ffffff", "#f3f5f9", "#dce2ec", "#1b2433", "#5d6b82", "#1e3a8a", "#e6ecf8", "#0f1d3a", "#ffffff"),
    dark: palette("#0d1320", "#141c2c", "#243049", "#e2e8f2", "#8d9bb4", "#7aa2ff", "#1a2745", "#0a1122", "#ffffff"),
  },
};
