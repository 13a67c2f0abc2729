import { expect, test, type Browser, type Page } from "@playwright/test";
import { io, type Socket } from "socket.io-client";
import { PROTOCOL_VERSION, type Ack, type ClientToServerEvents, type ServerToClientEvents } from "../lib/protocol/wire";
import { expectAccessible } from "./axe";
import { ConsolePage, ProjectorPage, createSession, type CreatedSession } from "./fixtures";
import { cutOff, settle } from "./layout";
import { unmarkedText, usePseudoLocale as choosePseudoLocale } from "./pseudo";
import { contextIn, setAsideFromCheck } from "./languageHelpers";
import { BINDING_MODES } from "../lib/lesson/types";
import { VARIANTS_BY_MODE, getScenario } from "../lib/lesson/scenarios";

/** The card's step titles ("CREATE PV"): kept as the card prints them inside the lesson's translated sentences. */
const CARD_TITLES = [
  ...new Set(BINDING_MODES.flatMap((m) => VARIANTS_BY_MODE[m].flatMap((v) => getScenario(m, v).steps.map((step) => step.title)))),
].sort((a, b) => b.length - a.length);

/** Whether an unmarked text's only plain letters are the card's step titles inside a translated sentence. */
function onlyCardTitles(entry: string): boolean {
  const quoted = /: "([^]*)"$/.exec(entry)?.[1];
  if (quoted === undefined) return false;
  let rest = quoted;
  for (const title of CARD_TITLES) rest = rest.split(title).join(" ");
  return !/[A-Za-z]/.test(rest);
}

/**
 * The projector in the room's language (issue 32): it is one screen for the
 * whole room, so it follows the language the teacher chose for it
 * (`projector:language`), not its own browser's, and changes live; the
 * console stays in its own. Kubernetes stays as Kubernetes prints it, Arabic
 * lays the screen out right to left with the diagram's lifelines left to
 * right, and in the pseudo-locale every word of the projector's and the
 * replay's own comes from a catalog, with nothing cut off at 1280x720.
 *
 * The room's commands are sent from a teacher's socket holding the host key
 * (what the console's own controls send), so the checks do not depend on
 * the console's layout; the console page is open to show it stays English.
 */

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
const sockets: ClientSocket[] = [];

test.afterEach(async ({ browser }) => {
  for (const s of sockets.splice(0)) s.close();
  for (const context of browser.contexts()) await context.close();
});

function connect(baseURL: string, auth: Record<string, unknown>): Promise<ClientSocket> {
  return new Promise((resolve, reject) => {
    const socket: ClientSocket = io(baseURL, {
      transports: ["websocket"],
      reconnection: false,
      forceNew: true,
      auth: { v: PROTOCOL_VERSION, ...auth },
    });
    sockets.push(socket);
    socket.on("session:patch", (patch) => {
      if (patch.whole) resolve(socket);
    });
    socket.once("connect_error", reject);
  });
}

const teacherSocket = (baseURL: string, s: CreatedSession) => connect(baseURL, { role: "host", code: s.code, hostKey: s.hostKey });
const studentSocket = (baseURL: string, s: CreatedSession, nickname: string) =>
  connect(baseURL, { role: "student", code: s.code, nickname });

/** Send one command and wait for its answer; it must be accepted. */
async function send<E extends keyof ClientToServerEvents>(socket: ClientSocket, event: E, payload: Parameters<ClientToServerEvents[E]>[0]) {
  // socket.io's typed emit cannot follow a generic event name.
  const emit = socket.emit.bind(socket) as unknown as (e: string, p: unknown, cb: (r: Ack<unknown>) => void) => void;
  const answer = await new Promise<Ack<unknown>>((resolve) => emit(event, payload, resolve));
  expect(answer, `${event} ${JSON.stringify(payload)}`).toMatchObject({ ok: true });
  return answer;
}

async function projectorAt(browser: Browser, code: string, size: { width: number; height: number }, pseudo = false, locale?: string) {
  const context = await contextIn(browser, { viewport: size, locale, pseudo });
  const page = await context.newPage();
  await page.goto(`/present/${code}`);
  await expect(page.getByTestId("room-code")).toHaveText(code);
  return new ProjectorPage(page, context);
}

const roomLanguage = (page: Page) => page.getByTestId("room-language");

/** The YAML and the Events as the projector's objects panel shows them (Kubernetes' own strings). */
async function kubernetesStrings(page: Page, object: "PersistentVolumeClaim" | "events") {
  const panel = page.getByTestId("projector-panel");
  await expect(panel).toHaveAttribute("data-object", object);
  if (object === "events") {
    return {
      reasons: await panel.getByTestId("event-reason").allTextContents(),
      messages: await panel.getByTestId("event-message").allTextContents(),
    };
  }
  return { yaml: await panel.getByTestId("inspector-yaml").innerText() };
}

test("the projector reads the language the console chose for the room, live, while the console stays English; Kubernetes strings stay Kubernetes'", async ({
  browser,
  baseURL,
}) => {
  const session = await createSession(baseURL!, "Raum-Sprache");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  const room = await teacherSocket(baseURL!, session);
  const page = projector.page;
  await send(room, "step:go", { stepIndex: 6 });
  await send(room, "projector:show", { panel: "objects" });
  await projector.expectStep(7);

  // English first (no choice yet: the projector's own browser), and what Kubernetes prints there.
  await expect(roomLanguage(page)).toHaveAttribute("data-lang", "en");
  await expect(page.getByText("Join on your phone")).toBeVisible();
  const yaml = await kubernetesStrings(page, "PersistentVolumeClaim");
  await send(room, "projector:focus", { object: "events", deepDive: null });
  const events = await kubernetesStrings(page, "events");
  expect(events.reasons?.length).toBeGreaterThan(0);
  await expect(page.getByTestId("projector-events")).toContainText("as kubectl describe prints them");

  await send(room, "projector:language", { language: "de" });
  await expect(roomLanguage(page)).toHaveAttribute("data-lang", "de");
  await expect(roomLanguage(page)).toHaveAttribute("lang", "de");
  await expect(page.getByTestId("projector-events")).toContainText("wie kubectl describe sie ausgibt");
  await expect(page.getByRole("region", { name: "Objekte & Ereignisse" })).toBeVisible();
  await expect(page.getByTestId("step-indicator")).toContainText("Schritt 7 von");
  expect(await kubernetesStrings(page, "events")).toEqual(events);
  await send(room, "projector:focus", { object: "PersistentVolumeClaim", deepDive: null });
  expect(await kubernetesStrings(page, "PersistentVolumeClaim")).toEqual(yaml);
  await send(room, "projector:show", { panel: "none" });
  await expect(page.getByText("Mit dem Handy beitreten")).toBeVisible();
  await expect(page.getByTestId("binding-mode")).toHaveText("WaitForFirstConsumer");

  // The console is the teacher's own screen: it stays in its browser's language.
  await expect(teacher.page.locator("html")).toHaveAttribute("lang", "en");
  await teacher.expectStep(7);
  await expect(teacher.step()).toContainText("Step 7 of");

  // Live: the teacher picks Japanese and the same projector follows without a reload.
  await send(room, "projector:language", { language: "ja" });
  await expect(roomLanguage(page)).toHaveAttribute("data-lang", "ja");
  await expect(page.getByText("スマホで参加")).toBeVisible();
  await expect(page.getByTestId("binding-mode")).toHaveText("WaitForFirstConsumer");
  await send(room, "projector:show", { panel: "objects" });
  expect(await kubernetesStrings(page, "PersistentVolumeClaim")).toEqual(yaml);

  // A projector opened now gets the room's language at once, and it survives a reload.
  const late = await projectorAt(browser, session.code, { width: 1920, height: 1080 }, false, "de-DE");
  await expect(roomLanguage(late.page)).toHaveAttribute("data-lang", "ja");
  await page.reload();
  await expect(roomLanguage(page)).toHaveAttribute("data-lang", "ja");

  // No choice: each projector reads its own browser's language again.
  await send(room, "projector:language", { language: null });
  await expect(roomLanguage(page)).toHaveAttribute("data-lang", "en");
  await expect(roomLanguage(late.page)).toHaveAttribute("data-lang", "de");

  // A student's socket cannot choose it, and a language the projector does not have is refused by name.
  const student = await studentSocket(baseURL!, session, "Ada");
  const emit = (s: ClientSocket, payload: unknown) =>
    new Promise<Ack<unknown>>((resolve) =>
      (s.emit.bind(s) as unknown as (e: string, p: unknown, cb: (r: Ack<unknown>) => void) => void)("projector:language", payload, resolve),
    );
  expect(await emit(student, { language: "de" })).toMatchObject({ ok: false, error: { code: "NOT_HOST" } });
  expect(await emit(room, { language: "tlh" })).toMatchObject({
    ok: false,
    error: { code: "BAD_REQUEST", message: expect.stringContaining("not a language the projector has") },
  });
});

/**
 * The pseudo-locale check, less what is not the projector's to translate: the built-in lesson's own words (marked
 * lang="en" until the lesson is translated, and the card's step titles inside its translated sentences) and the mode badge's Kubernetes field names (components/classroom, shown
 * left to right but not marked translate="no" there).
 */
async function expectProjectorFromCatalogs(page: Page, state: string, selector = "body") {
  await settle(page);
  await setAsideFromCheck(page, '[lang="en"], [data-testid=binding-mode] ~ [dir=ltr], p:has(> [data-testid=binding-mode]) > [dir=ltr]');
  const found = (await unmarkedText(page, selector)).filter((entry) => !onlyCardTitles(entry));
  expect.soft(found, `text not from a catalog, ${state}`).toEqual([]);
}

async function expectWhole(page: Page, state: string) {
  await settle(page);
  expect.soft(await cutOff(page), `${state}: cut off or spilling at 1280x720`).toEqual([]);
}

test("the projector in the pseudo-locale at 1280x720: every word of its own from a catalog, nothing cut off, through a lesson's states", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const session = await createSession(baseURL!, "Pseudo room");
  const projector = await projectorAt(browser, session.code, { width: 1280, height: 720 }, true);
  const page = projector.page;
  const room = await teacherSocket(baseURL!, session);
  const ada = await studentSocket(baseURL!, session, "Ada");
  const linus = await studentSocket(baseURL!, session, "Linus");
  await expect(roomLanguage(page)).toHaveAttribute("data-lang", "en-XA");

  await send(room, "step:go", { stepIndex: 4 });
  await projector.expectStep(5);
  await expectProjectorFromCatalogs(page, "a step, the diagram alone");
  await expectWhole(page, "a step");

  const opened = (await send(room, "poll:open", { kind: "next-step", durationS: 60 })) as { data: { pollId: string } };
  const pollId = opened.data.pollId;
  await expect(page.getByTestId("projector-poll")).toBeVisible();
  await send(ada, "poll:vote", { pollId, optionId: "o1" });
  await expect(page.getByTestId("vote-progress")).toHaveAttribute("data-voted", "1");
  await expectProjectorFromCatalogs(page, "a poll open");
  await expectWhole(page, "a poll open");

  await send(linus, "poll:vote", { pollId, optionId: "o2" });
  await send(room, "results:show", { visible: true });
  await expect(page.getByTestId("poll-tally")).toHaveAttribute("data-total", "2");
  await expectProjectorFromCatalogs(page, "live results");
  await expectWhole(page, "live results");

  await send(room, "poll:close", { pollId });
  await send(room, "poll:reveal", { pollId });
  await expect(page.getByTestId("poll-option-note").first()).toBeVisible();
  await expectProjectorFromCatalogs(page, "the answer revealed");
  await expectWhole(page, "the answer revealed");

  // A student's question on the projector, beside its arrow.
  const asked = (await send(ada, "question:ask", { text: "Why here?", target: { kind: "arrow", stepIndex: 3 } })) as {
    data: { questionId: string };
  };
  await send(room, "question:show", { questionId: asked.data.questionId });
  await expect(page.getByTestId("projector-question")).toBeVisible();
  await expectProjectorFromCatalogs(page, "a question on screen");
  await expectWhole(page, "a question on screen");
  await send(room, "question:show", { questionId: null });

  for (const [panel, object] of [
    ["topology", null],
    ["objects", "PersistentVolumeClaim"],
    ["objects", "events"],
    ["compare", null],
    ["hood", null],
  ] as const) {
    await send(room, "projector:show", { panel });
    if (object) await send(room, "projector:focus", { object, deepDive: null });
    await expect(page.getByTestId("projector-panel-content")).toBeVisible();
    await expectProjectorFromCatalogs(page, `the ${panel} panel${object ? ` (${object})` : ""}`);
    await expectWhole(page, `the ${panel} panel${object ? ` (${object})` : ""}`);
  }

  await send(room, "room:lock", { locked: true });
  await send(room, "projector:show", { panel: "none" });
  await expect(page.getByTestId("room-locked")).toBeVisible();
  await expectProjectorFromCatalogs(page, "the room locked");
  await expectWhole(page, "the room locked");
});

test("the replay in the pseudo-locale: every word of its own from a catalog", async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const session = await createSession(baseURL!, "Pseudo replay");
  const teacher = await ConsolePage.open(browser, session);
  const room = await teacherSocket(baseURL!, session);
  const ada = await studentSocket(baseURL!, session, "Ada");
  await send(room, "step:go", { stepIndex: 2 });
  // The class's own words (a teacher's poll, a student's question) are shown as written, in any script.
  const opened = (await send(room, "poll:open", {
    kind: "custom",
    question: "¿Qué pasa?",
    options: ["α", "β"],
    correctIndex: 0,
    durationS: 0,
  })) as {
    data: { pollId: string };
  };
  await send(ada, "poll:vote", { pollId: opened.data.pollId, optionId: "o1" });
  await send(room, "poll:close", { pollId: opened.data.pollId });
  await send(room, "poll:reveal", { pollId: opened.data.pollId });
  await send(ada, "question:ask", { text: "Warum?", target: { kind: "step", stepIndex: 2 } });
  await send(room, "step:go", { stepIndex: 3 });
  await send(room, "session:end", {});

  // The teacher's own browser holds the host key: its replay shows everything, here in the pseudo-locale.
  await choosePseudoLocale(teacher.context);
  const page = await teacher.context.newPage();
  await page.goto(`/replay/${session.id}`);
  await expect(page.getByTestId("replay-play")).toBeVisible();
  // End (off the slider, whose own End stops at its last whole step) goes to the end of the recording.
  await page.getByTestId("replay-clock").click();
  await page.keyboard.press("End");
  await expect(page.getByTestId("replay-question")).toHaveCount(1);
  await expectProjectorFromCatalogs(page, "the replay at its end");
  await page.keyboard.press("Home");
  await page.getByTestId("replay-next-poll").click();
  await expect(page.getByTestId("poll-tally")).toHaveAttribute("data-total", "1");
  await expectProjectorFromCatalogs(page, "the replay at the poll's result");
  await page.getByTestId("lesson-panels").getByTestId("panel-topology").click();
  await expectProjectorFromCatalogs(page, "the replay's topology panel");
  await page.getByTestId("lesson-panels").getByTestId("panel-compare").click();
  await expectProjectorFromCatalogs(page, "the replay's comparison");
});

test("the projector in Arabic: right to left, the diagram's lifelines still left to right, axe clean", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "غرفة");
  const projector = await projectorAt(browser, session.code, { width: 1280, height: 720 });
  const page = projector.page;
  const room = await teacherSocket(baseURL!, session);
  await send(room, "step:go", { stepIndex: 5 });
  await send(room, "projector:language", { language: "ar" });
  await expect(roomLanguage(page)).toHaveAttribute("dir", "rtl");
  await expect(page.getByText("انضم من هاتفك")).toBeVisible();
  expect(await page.getByTestId("projector").evaluate((el) => getComputedStyle(el).direction)).toBe("rtl");
  // The room card sits at the end of the header's line: on the left in Arabic.
  await expect(page.getByTestId("projector-qr")).toBeVisible();
  const card = await page.getByTestId("projector-qr").boundingBox();
  const header = await page.getByTestId("step-indicator").boundingBox();
  expect(card!.x).toBeLessThan(header!.x);

  const diagram = page.getByTestId("projector-diagram");
  await expect(diagram).toHaveAttribute("dir", "ltr");
  const heads: { id: string; x: number }[] = await diagram
    .locator("[data-lifeline]")
    .evaluateAll((els) => els.map((el) => ({ id: el.getAttribute("data-lifeline") ?? "", x: el.getBoundingClientRect().x })));
  expect(heads.map((h) => h.id)).toEqual(["you", "control", "scheduler", "csi", "node"]);
  const xs = heads.map((h) => h.x);
  expect(xs).toEqual([...xs].sort((a, b) => a - b));
  await settle(page);
  expect(await cutOff(page), "Arabic projector: cut off or spilling").toEqual([]);
  await expectAccessible(page, "the projector in Arabic");

  await send(room, "projector:show", { panel: "objects" });
  await expect(page.getByTestId("inspector-yaml")).toHaveAttribute("dir", "ltr");
  await expectAccessible(page, "the projector in Arabic with the objects panel");
});
