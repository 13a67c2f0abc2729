import { expect, test } from "@playwright/test";
import { io, type Socket } from "socket.io-client";
import { PROTOCOL_VERSION, type ClientToServerEvents, type ServerToClientEvents } from "../lib/protocol/wire";
import { expectAccessible } from "./axe";
import { ConsolePage, createSession } from "./fixtures";

type StudentSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

const sockets: StudentSocket[] = [];

test.afterEach(async ({ browser }) => {
  for (const s of sockets.splice(0)) s.close();
  for (const context of browser.contexts()) await context.close();
});

/** Students as scripts (a lecture hall of phones would take too many browsers); the console is the real page. */
async function joinStudents(baseURL: string, code: string, names: string[]): Promise<StudentSocket[]> {
  const joined: StudentSocket[] = [];
  for (let i = 0; i < names.length; i += 50) {
    const batch = names.slice(i, i + 50).map(
      (nickname) =>
        new Promise<StudentSocket>((resolve, reject) => {
          const socket: StudentSocket = io(baseURL, {
            transports: ["websocket"],
            reconnection: false,
            forceNew: true,
            auth: { v: PROTOCOL_VERSION, role: "student", code, nickname },
          });
          sockets.push(socket);
          // Joined once the class's records arrive whole (the first patch of the join).
          socket.on("session:patch", (patch) => {
            if (patch.whole && patch.stream === "public") resolve(socket);
          });
          socket.once("connect_error", reject);
        }),
    );
    joined.push(...(await Promise.all(batch)));
  }
  return joined;
}

test("a lecture hall on the console: counts, the first hundred listed, and any student found by name or number", async ({
  browser,
  baseURL,
}) => {
  const session = await createSession(baseURL!, "Lecture hall");
  const teacher = await ConsolePage.open(browser, session);
  const names = Array.from({ length: 240 }, (_, i) => `Student ${String(i + 1).padStart(3, "0")}`);
  const students = await joinStudents(baseURL!, session.code, names);
  await teacher.expectParticipants(240);
  const page = teacher.page;
  await expect(page.getByRole("heading", { name: /Students \(240 connected, 240 joined\)/ })).toBeVisible();
  await expect(page.getByTestId("participant-list").locator("li")).toHaveCount(100);
  await expect(page.getByTestId("participant-more")).toHaveText("Showing 100 of 240. Type a name to find a student.");

  // Found by name, whatever its place in the list; then by join number.
  const search = page.getByLabel("Find a student");
  await search.fill("student 217");
  await expect(page.getByTestId("participant-list").locator("li")).toHaveCount(1);
  await expect(page.getByTestId("participant-list")).toContainText("Student 217");
  // The fifth to join (batches join in parallel, so which name that is varies): exactly one row.
  await search.fill("#5");
  await expect(page.getByTestId("participant-list").locator("li")).toHaveCount(1);
  await expect(page.getByTestId("participant-list")).toHaveText(/Student \d{3}/);
  await search.fill("nobody here");
  await expect(page.getByTestId("participant-list")).toHaveText("Nobody by that name.");

  // Leaving shows up as the one row that changed: away, listed after the connected ones.
  await search.fill("Student 042");
  students[41].close();
  await teacher.expectParticipants(239);
  await expect(page.locator("[data-testid=participant-list] [data-connected=false]")).toContainText("Student 042");
  await search.fill("");
  await expect(page.getByTestId("participant-more")).toHaveText("Showing 100 of 240. Type a name to find a student.");
  await expectAccessible(page, "console with a lecture hall");
});
