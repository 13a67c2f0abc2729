import { LAB_SHEETS, scenarioIdForSlug } from "@/lib/lesson/lab";
import { labSheetFileName, labSheetMarkdown } from "@/lib/lesson/labMarkdown";

/** The lab sheet as a Markdown file, for the student to keep beside their terminal. */
export async function GET(_request: Request, { params }: { params: Promise<{ scenario: string }> }) {
  const id = scenarioIdForSlug((await params).scenario);
  if (!id) return new Response("No such lab sheet.", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
  const sheet = LAB_SHEETS[id];
  return new Response(labSheetMarkdown(sheet), {
    headers: {
      "content-type": "text/markdown; charset=utf-8",
      "content-disposition": `attachment; filename="${labSheetFileName(sheet)}"`,
    },
  });
}
