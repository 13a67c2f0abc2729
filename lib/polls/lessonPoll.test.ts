import { describe, expect, it } from "vitest";
import { customDiagram, type CustomLesson } from "../lesson/model";
import { generateLessonPoll } from "./lessonPoll";

const step = (from: string, to: string, title: string, extra: Partial<CustomLesson["steps"][number]> = {}) => ({
  from,
  to,
  line: "solid" as const,
  head: "filled" as const,
  title,
  ...extra,
});

const lesson: CustomLesson = {
  title: "Handshake",
  lifelines: [
    { id: "C", name: "Client" },
    { id: "S", name: "Server" },
  ],
  steps: [
    step("C", "S", "SYN"),
    step("S", "C", "SYN-ACK", { why: "The server agrees and sends its own number." }),
    step("C", "S", "ACK"),
    step("C", "S", "Data"),
    step("S", "C", "ACK", { wrongNote: "Acks come only after data arrives." }),
    step("C", "S", "FIN"),
  ],
};
const diagram = customDiagram(lesson);

describe("generateLessonPoll", () => {
  it("makes the next message right and later messages wrong, never one already shown", () => {
    const poll = generateLessonPoll(diagram, 0)!;
    expect(poll.question).toBe("What happens next, after SYN?");
    expect(poll.options[0]).toEqual({
      text: "Server → Client: SYN-ACK",
      note: "Right: The server agrees and sends its own number.",
      correct: true,
    });
    const wrong = poll.options.filter((o) => !o.correct);
    expect(wrong).toHaveLength(3);
    // The teacher's note first; the rest say when they come.
    expect(wrong[0]).toMatchObject({ text: "Server → Client: ACK", note: "Acks come only after data arrives." });
    expect(wrong.map((o) => o.text)).not.toContain("Client → Server: SYN");
    expect(wrong.find((o) => o.text === "Client → Server: Data")?.note).toBe("This comes later, at step 4.");
  });

  it("offers a repeated message as already happened when later ones run out", () => {
    const poll = generateLessonPoll(diagram, 3)!;
    expect(poll.options.map((o) => o.text)).toEqual(["Server → Client: ACK", "Client → Server: FIN"]);
    const atStep2 = generateLessonPoll(customDiagram({ ...lesson, steps: [...lesson.steps, step("C", "S", "ACK")] }), 4)!;
    expect(atStep2.options.find((o) => o.text === "Client → Server: ACK")?.note).toBe("This already happened at step 3.");
  });

  it("asks and answers with the teacher's short titles, not the long messages behind them", () => {
    const long = customDiagram({
      ...lesson,
      steps: [
        step("C", "S", "SYN seq=4023457811 win=64240 mss=1460 sackOK", { shortTitle: "SYN" }),
        step("S", "C", "SYN-ACK seq=1789234567 ack=4023457812", { shortTitle: "SYN-ACK" }),
        ...lesson.steps.slice(2),
      ],
    });
    const poll = generateLessonPoll(long, 0)!;
    expect(poll.question).toBe("What happens next, after SYN?");
    expect(poll.options[0]).toMatchObject({ text: "Server → Client: SYN-ACK", correct: true });
  });

  it("asks nothing after the last message, or with only the right answer left", () => {
    expect(generateLessonPoll(diagram, 5)).toBeNull();
    expect(generateLessonPoll(diagram, 4)).toBeNull();
  });
});
