import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getLocale, getMessages, getTranslations } from "next-intl/server";
import { proseCatalog } from "@/lib/lesson/localize";
import { LAB_SLUGS, labSheet, labSheetsByVersion, scenarioIdForSlug } from "@/lib/lesson/lab";
import { SCENARIO_IDS } from "@/lib/lesson/kubeCluster";
import { LabSheetView } from "./LabSheetView";

/**
 * A scenario's lab sheet: from the diagram to a laptop cluster, for the
 * Kubernetes release the class runs (?k8s=1.32; the newest traced release
 * without it). The page is static: it carries the sheet of every release,
 * renders the default one, and the browser shows the one the URL names.
 */

export function generateStaticParams() {
  return SCENARIO_IDS.map((id) => ({ scenario: LAB_SLUGS[id] }));
}

export async function generateMetadata({ params }: { params: Promise<{ scenario: string }> }): Promise<Metadata> {
  const id = scenarioIdForSlug((await params).scenario);
  const [t, meta] = await Promise.all([getTranslations("lab"), getTranslations("meta")]);
  if (!id) return { title: t("titleMissing") };
  // The scenario's title as the page shows it: the lesson catalog's, in the reader's language where it has one.
  const prose = proseCatalog(await getLocale(), await getMessages());
  return { title: t("title", { title: prose.localize(labSheet(id).title).text, product: meta("product") }) };
}

export default async function LabPage({ params }: { params: Promise<{ scenario: string }> }) {
  const { scenario: slug } = await params;
  const id = scenarioIdForSlug(slug);
  if (!id) notFound();
  const sheets = labSheetsByVersion(id);
  const titles = SCENARIO_IDS.map((other) => ({ id: other, slug: LAB_SLUGS[other], title: labSheet(other).title }));
  return <LabSheetView sheets={sheets} titles={titles} />;
}
