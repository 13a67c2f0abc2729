import { LAB_VERSION_PARAM, labSheet, scenarioIdForSlug } from "@/lib/lesson/lab";
import { labSheetFileName, labSheetMarkdown } from "@/lib/lesson/labMarkdown";
import { DEFAULT_KUBE_VERSION, isKubeVersion } from "@/lib/lesson/versions";

/** The lab sheet as a Markdown file, for the student to keep beside their terminal; ?k8s= picks the release, as on the page. */
export async function GET(request: Request, { params }: { params: Promise<{ scenario: string }> }) {
  const id = scenarioIdForSlug((await params).scenario);
  if (!id) return new Response("No such lab sheet.", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
  const named = new URL(request.url).searchParams.get(LAB_VERSION_PARAM);
  const sheet = labSheet(id, isKubeVersion(named) ? named : DEFAULT_KUBE_VERSION);
  return new Response(labSheetMarkdown(sheet), {
    headers: {
      "content-type": "text/markdown; charset=utf-8",
      "content-disposition": `attachment; filename="${labSheetFileName(sheet)}"`,
    },
  });
}
