import { LessonEditor } from "@/components/lessonLibrary/LessonEditor";

export const metadata = { title: "Lesson from a sequence diagram · Dynamic provisioning, live" };

export default function LessonEditPage() {
  return (
    <main className="mx-auto max-w-[1500px] px-5 py-8">
      <h1 className="text-3xl font-bold">New lesson from a sequence diagram</h1>
      <LessonEditor />
    </main>
  );
}
