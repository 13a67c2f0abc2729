/** Languages written right to left (their language subtag): the page's `dir`, and how Kubernetes strings are kept left to right inside them. */
const RTL_LANGUAGES = new Set(["ar", "he", "fa", "ur"]);

/** The writing direction of a language tag ("ar", "ar-EG": rtl; "de-AT": ltr). */
export function directionOf(locale: string): "ltr" | "rtl" {
  return RTL_LANGUAGES.has(locale.split("-")[0].toLowerCase()) ? "rtl" : "ltr";
}
