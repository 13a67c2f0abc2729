import { describe, expect, it } from "vitest";
import { directionOf, negotiateLocale, resolveLocale } from "@/i18n/locales";
import { pseudoMessage } from "@/i18n/pseudo";

describe("which language a request gets", () => {
  it("takes the switch's cookie over the browser's languages, and English when neither fits", () => {
    expect(resolveLocale("en-XA", "de-DE")).toBe("en-XA");
    expect(resolveLocale("ja", "de-DE")).toBe("ja");
    expect(resolveLocale(undefined, "de-DE")).toBe("de");
    expect(resolveLocale("xx", null)).toBe("en");
    expect(resolveLocale(undefined, "tlh")).toBe("en");
  });

  it("ranks Accept-Language by weight and matches a shipped language by its base", () => {
    expect(negotiateLocale("de-DE,de;q=0.9,en;q=0.8")).toBe("de");
    expect(negotiateLocale("en-US;q=0.5, ja;q=0.9")).toBe("ja");
    expect(negotiateLocale("pt-PT")).toBe("pt-BR");
    expect(negotiateLocale("zh-TW, en;q=0.1")).toBe("zh-CN");
    expect(negotiateLocale("ar")).toBe("ar");
    expect(negotiateLocale("fr-CA;q=0.7, es-MX")).toBe("es");
    expect(negotiateLocale("tlh, en-GB;q=0.8")).toBe("en");
    expect(negotiateLocale("*")).toBeNull();
    expect(negotiateLocale("en;q=0")).toBeNull();
    expect(negotiateLocale("")).toBeNull();
  });

  it("lays Arabic out right to left and the rest left to right", () => {
    expect(directionOf("ar")).toBe("rtl");
    expect(directionOf("ar-EG")).toBe("rtl");
    expect(directionOf("en-XA")).toBe("ltr");
    expect(directionOf("zh-CN")).toBe("ltr");
  });
});

describe("the pseudo-locale", () => {
  it("marks and lengthens the words and leaves placeholders, plurals and tags alone", () => {
    expect(pseudoMessage("Join the class")).toBe("[Ĵöîñ ţĥé çļåšš······]");
    expect(pseudoMessage("Step {step} of {total}")).toMatch(/^\[Šţéþ \{step\} öƒ \{total\}·+\]$/);
    expect(pseudoMessage("{n, plural, one {# vote} other {# votes}}")).toMatch(/^\[\{n,plural,one\{# ṽöţé\} other\{# ṽöţéš\}\}·+\]$/);
    expect(pseudoMessage("<k8s>Pod</k8s> is")).toMatch(/^\[<k8s>Þöð<\/k8s> îš·+\]$/);
  });
});
