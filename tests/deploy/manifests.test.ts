import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  MAX_HTTP_BODY_BYTES,
  READINESS_TIMEOUT_MS,
  SERVER_NODE_FLAGS,
  SOCKET_PING_INTERVAL_MS,
  SOCKET_PING_TIMEOUT_MS,
} from "../../lib/constants";
import { CONFIG_ENV_NAMES, loadConfig } from "../../server/config";
import { HEALTH_PATH, READY_PATH } from "../../server/ops";
import { startServer } from "../integration/harness";
import { parseYamlDocuments } from "../support/yamlDocuments";

/**
 * deploy/ cannot be built or applied on this machine (no container engine,
 * no cluster), so nothing would notice it drifting from the code. This reads
 * the manifests and the Dockerfile and holds their ports, probe paths,
 * environment variables and settings to what the server really does.
 */

const ROOT = path.resolve(__dirname, "../..");
const DEPLOY = path.join(ROOT, "deploy");

const metadata = z.object({
  name: z.string(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});
const envVar = z.object({
  name: z.string(),
  value: z.string().optional(),
  valueFrom: z.object({ secretKeyRef: z.object({ name: z.string(), key: z.string(), optional: z.boolean().optional() }) }).optional(),
});
const probe = z.object({
  httpGet: z.object({ path: z.string(), port: z.union([z.string(), z.number()]) }).optional(),
  exec: z.object({ command: z.array(z.string()) }).optional(),
  tcpSocket: z.object({ port: z.union([z.string(), z.number()]) }).optional(),
  periodSeconds: z.number().optional(),
  timeoutSeconds: z.number().optional(),
  failureThreshold: z.number().optional(),
});
const container = z.object({
  name: z.string(),
  image: z.string(),
  args: z.array(z.string()).optional(),
  ports: z.array(z.object({ name: z.string(), containerPort: z.number() })),
  env: z.array(envVar).optional(),
  readinessProbe: probe,
  livenessProbe: probe,
  startupProbe: probe.optional(),
  resources: z.object({
    requests: z.object({ cpu: z.string(), memory: z.string() }),
    limits: z.object({ cpu: z.string().optional(), memory: z.string() }),
  }),
});
const podTemplate = z.object({
  metadata: z.object({ labels: z.record(z.string(), z.string()) }),
  spec: z.object({ containers: z.array(container).min(1) }),
});
const workload = z.object({
  metadata,
  spec: z.object({
    replicas: z.number(),
    serviceName: z.string().optional(),
    selector: z.object({ matchLabels: z.record(z.string(), z.string()) }),
    template: podTemplate,
  }),
});
const service = z.object({
  metadata,
  spec: z.object({
    clusterIP: z.string().optional(),
    selector: z.record(z.string(), z.string()),
    ports: z.array(z.object({ name: z.string(), port: z.number(), targetPort: z.union([z.string(), z.number()]) })),
  }),
});
const ingress = z.object({
  metadata,
  spec: z.object({
    ingressClassName: z.string(),
    tls: z.array(z.object({ hosts: z.array(z.string()), secretName: z.string() })),
    rules: z.array(
      z.object({
        host: z.string(),
        http: z.object({
          paths: z.array(
            z.object({
              path: z.string(),
              pathType: z.string(),
              backend: z.object({ service: z.object({ name: z.string(), port: z.object({ name: z.string() }) }) }),
            }),
          ),
        }),
      }),
    ),
  }),
});

const docs: { file: string; kind: string; name: string; doc: unknown }[] = [];
beforeAll(async () => {
  for (const file of fs.readdirSync(path.join(DEPLOY, "k8s")).filter((f) => /\.ya?ml$/.test(f))) {
    for (const doc of await parseYamlDocuments(fs.readFileSync(path.join(DEPLOY, "k8s", file), "utf8"), file)) {
      const head = z.object({ apiVersion: z.string(), kind: z.string(), metadata }).parse(doc);
      docs.push({ file, kind: head.kind, name: head.metadata.name, doc });
    }
  }
});

function find<T>(kind: string, name: string, schema: z.ZodType<T>): T {
  const found = docs.filter((d) => d.kind === kind && d.name === name);
  expect(found, `${kind} ${name}`).toHaveLength(1);
  return schema.parse(found[0].doc);
}

const app = () => find("Deployment", "classroom", workload);
const appService = () => find("Service", "classroom", service);
const redis = () => find("StatefulSet", "classroom-redis", workload);
const redisService = () => find("Service", "classroom-redis", service);
const way = () => find("Ingress", "classroom", ingress);
const appContainer = () => app().spec.template.spec.containers[0];

/** The app's environment as the server would see it (secrets replaced by stand-ins of an acceptable length). */
function appEnv(): Record<string, string> {
  return Object.fromEntries((appContainer().env ?? []).map((e) => [e.name, e.value ?? `stand-in-for-${e.name}-secret`]));
}

/** A named container port, or a number, resolved to a number. */
function portOf(ports: { name: string; containerPort: number }[], ref: string | number): number {
  if (typeof ref === "number") return ref;
  const port = ports.find((p) => p.name === ref);
  expect(port, `container port named ${ref}`).toBeDefined();
  return port!.containerPort;
}

/** Kubernetes quantities: 500m, 1, 320Mi, 1Gi. */
function quantity(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi)?$/.exec(q);
  if (!m) throw new Error(`not a quantity: ${q}`);
  const unit = { m: 1 / 1000, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 }[m[2] ?? ""] ?? 1;
  return Number(m[1]) * unit;
}

function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

function dockerfile(): { from: string[]; expose: number[]; env: Record<string, string>; cmd: string[] } {
  const text = fs.readFileSync(path.join(DEPLOY, "Dockerfile"), "utf8").replace(/\\\n/g, " ");
  const out = { from: [] as string[], expose: [] as number[], env: {} as Record<string, string>, cmd: [] as string[] };
  for (const line of text.split("\n")) {
    const [instruction, ...rest] = line.trim().split(/\s+/);
    const args = rest.join(" ");
    if (instruction === "FROM") out.from.push(rest[0]);
    if (instruction === "EXPOSE") out.expose.push(...rest.map(Number));
    if (instruction === "ENV") for (const [, k, v] of args.matchAll(/(\w+)=(\S+)/g)) out.env[k] = v;
    if (instruction === "CMD") out.cmd = z.array(z.string()).parse(JSON.parse(args));
  }
  return out;
}

describe("deploy/ matches the server", () => {
  it("has the pieces of the Redis scale-out set-up", () => {
    expect(docs.map((d) => `${d.kind}/${d.name}`).sort()).toEqual(
      ["Deployment/classroom", "Ingress/classroom", "Service/classroom", "Service/classroom-redis", "StatefulSet/classroom-redis"].sort(),
    );
    expect(app().spec.replicas).toBeGreaterThanOrEqual(2);
    expect(redis().spec.replicas).toBe(1);
  });

  it("uses only environment variables the server reads, with values it accepts", () => {
    const names = (appContainer().env ?? []).map((e) => e.name);
    expect(names.filter((n) => !CONFIG_ENV_NAMES.includes(n))).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
    const config = loadConfig(appEnv());
    expect(config.dev).toBe(false);
    expect(config.trustProxy).toBe(true);
    expect(config.redisUrl).not.toBeNull();
    // Secrets come from a Secret, never from the manifest.
    for (const secret of ["ADMIN_TOKEN", "METRICS_TOKEN"]) {
      const entry = appContainer().env?.find((e) => e.name === secret);
      expect(entry?.value, secret).toBeUndefined();
      expect(entry?.valueFrom?.secretKeyRef.key).toBe(secret);
    }
  });

  it("listens, is served and is reached on the same port", () => {
    const c = appContainer();
    const config = loadConfig(appEnv());
    expect(portOf(c.ports, "http")).toBe(config.port);
    const svc = appService();
    expect(selects(svc.spec.selector, app().spec.template.metadata.labels)).toBe(true);
    expect(selects(app().spec.selector.matchLabels, app().spec.template.metadata.labels)).toBe(true);
    const servicePort = svc.spec.ports.find((p) => portOf(c.ports, p.targetPort) === config.port);
    expect(servicePort, "a Service port reaching the server").toBeDefined();
    for (const rule of way().spec.rules) {
      for (const p of rule.http.paths) {
        expect(p.backend.service.name).toBe(svc.metadata.name);
        expect(p.backend.service.port.name).toBe(servicePort!.name);
      }
    }
    // Students are sent to PUBLIC_URL: the Ingress must answer that host, with TLS.
    const publicHost = new URL(config.publicUrl!).host;
    expect(way().spec.rules.map((r) => r.host)).toEqual([publicHost]);
    expect(way().spec.tls.flatMap((t) => t.hosts)).toContain(publicHost);
    expect(new URL(config.publicUrl!).protocol).toBe("https:");
  });

  it("probes the paths the server answers: readiness checks the store, liveness only the process", async () => {
    const c = appContainer();
    expect(c.readinessProbe.httpGet?.path).toBe(READY_PATH);
    expect(c.livenessProbe.httpGet?.path).toBe(HEALTH_PATH);
    expect(c.startupProbe?.httpGet?.path).toBe(HEALTH_PATH);
    for (const p of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
      expect(portOf(c.ports, p!.httpGet!.port)).toBe(loadConfig(appEnv()).port);
    }
    // The probe waits longer than readiness waits for the store, so a slow store reads as 503, not as a timeout.
    expect((c.readinessProbe.timeoutSeconds ?? 1) * 1000).toBeGreaterThan(READINESS_TIMEOUT_MS);
    const server = await startServer();
    try {
      for (const p of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
        const res = await fetch(`${server.url}${p!.httpGet!.path}`);
        expect(res.status, p!.httpGet!.path).toBe(200);
      }
    } finally {
      await server.close();
    }
  });

  it("keeps WebSockets open longer than the protocol's heartbeat, and lets API bodies through", () => {
    const annotations = way().metadata.annotations ?? {};
    const heartbeatSeconds = (SOCKET_PING_INTERVAL_MS + SOCKET_PING_TIMEOUT_MS) / 1000;
    for (const key of ["nginx.ingress.kubernetes.io/proxy-read-timeout", "nginx.ingress.kubernetes.io/proxy-send-timeout"]) {
      expect(Number(annotations[key]), key).toBeGreaterThanOrEqual(heartbeatSeconds);
    }
    const bodySize = annotations["nginx.ingress.kubernetes.io/proxy-body-size"];
    expect(quantity(bodySize.replace(/k$/, "Ki"))).toBeGreaterThanOrEqual(MAX_HTTP_BODY_BYTES);
  });

  it("runs Redis so that acknowledged means on disk, and points the app at it", () => {
    const r = redis();
    const c = r.spec.template.spec.containers[0];
    const args = c.args ?? [];
    const option = (name: string) => args[args.indexOf(`--${name}`) + 1];
    expect(option("appendonly")).toBe("yes");
    expect(option("appendfsync")).toBe("always");
    expect(option("maxmemory-policy")).toBe("noeviction");
    const svc = redisService();
    expect(r.spec.serviceName).toBe(svc.metadata.name);
    expect(selects(svc.spec.selector, r.spec.template.metadata.labels)).toBe(true);
    const url = new URL(loadConfig(appEnv()).redisUrl!);
    expect(url.hostname).toBe(svc.metadata.name);
    const port = svc.spec.ports.find((p) => p.port === Number(url.port || 6379));
    expect(port, "the Redis Service port in REDIS_URL").toBeDefined();
    expect(portOf(c.ports, port!.targetPort)).toBe(Number(url.port || 6379));
  });

  it("asks for the memory the benchmark measured for the students a replica is sized for", () => {
    const readme = fs.readFileSync(path.join(DEPLOY, "README.md"), "utf8");
    const figure = (label: string, unit: string) => {
      const m = new RegExp(`\\| ${label} \\| ([\\d,.]+) ${unit} \\|`).exec(readme);
      expect(m, `deploy/README.md states "${label}" in ${unit}`).not.toBeNull();
      return Number(m![1].replace(/,/g, ""));
    };
    const baseMiB = figure("memory at rest, pages served", "MiB");
    const perStudentKiB = figure("memory per connected student", "KiB");
    const students = figure("students per replica", "students");
    const { requests, limits } = appContainer().resources;
    const needed = baseMiB * 1024 ** 2 + students * perStudentKiB * 1024;
    expect(quantity(requests.memory)).toBeGreaterThanOrEqual(needed);
    expect(quantity(limits.memory)).toBeGreaterThanOrEqual(quantity(requests.memory));
    expect(quantity(requests.cpu)).toBeGreaterThan(0);
    for (const w of [app(), redis()]) for (const c of w.spec.template.spec.containers) expect(c.resources.requests.memory).toBeTruthy();
  });

  it("builds an image that runs the server as `npm run serve` does, on the port the manifests use", () => {
    const image = dockerfile();
    const pkg = z
      .object({ scripts: z.record(z.string(), z.string()) })
      .parse(JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")));
    expect(`NODE_ENV=production ${image.cmd.join(" ")}`).toBe(pkg.scripts.serve);
    // Every way of starting the server runs Node with the same flags (the tests and the benchmark use SERVER_NODE_FLAGS).
    for (const script of ["dev", "start", "serve"]) {
      expect(pkg.scripts[script], script).toContain(`node ${SERVER_NODE_FLAGS.join(" ")} --import tsx server/index.ts`);
    }
    expect(image.expose).toEqual([portOf(appContainer().ports, "http")]);
    expect(Number(image.env.PORT)).toBe(portOf(appContainer().ports, "http"));
    expect(Object.keys(image.env).filter((n) => !CONFIG_ENV_NAMES.includes(n) && n !== "NEXT_TELEMETRY_DISABLED")).toEqual([]);
    expect(loadConfig(image.env).dev).toBe(false);
    // The Node.js the project runs on.
    for (const from of image.from) expect(from).toMatch(new RegExp(`^node:${process.versions.node.split(".")[0]}-`));
  });

  it("README's configuration table lists every variable the server reads", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    expect(CONFIG_ENV_NAMES.filter((name) => !readme.includes(`| \`${name}\` |`))).toEqual([]);
  });
});
