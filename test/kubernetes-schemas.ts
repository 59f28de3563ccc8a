import { join } from 'node:path';
import ts from 'typescript';
import { ConfigMap, Namespace, Pod, Secret, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import {
  PrometheusRule,
  ServiceMonitor,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { REPO_ROOT } from '@dmrv/testing';
import { K8sObject, refOf } from './kubernetes-manifests';

interface ModelClass {
  apiVersion: string;
  kind: string;
  new (data: never): { validate(): void };
}

/**
 * The kinds the overlays may contain, each with the kubernetes-models class that validates it (the JSON schema of
 * the Kubernetes OpenAPI, or of the Prometheus Operator CRD) and the module whose `I<Kind>` interface types it. A
 * kind missing here fails the schema check by name rather than passing unchecked.
 */
const MODELS: Array<{ model: ModelClass; module: string }> = [
  { model: Namespace, module: 'kubernetes-models/v1/Namespace' },
  { model: ConfigMap, module: 'kubernetes-models/v1/ConfigMap' },
  { model: Secret, module: 'kubernetes-models/v1/Secret' },
  { model: Service, module: 'kubernetes-models/v1/Service' },
  { model: Pod, module: 'kubernetes-models/v1/Pod' },
  { model: Deployment, module: 'kubernetes-models/apps/v1/Deployment' },
  { model: Job, module: 'kubernetes-models/batch/v1/Job' },
  { model: HorizontalPodAutoscaler, module: 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler' },
  { model: PodDisruptionBudget, module: 'kubernetes-models/policy/v1/PodDisruptionBudget' },
  { model: NetworkPolicy, module: 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy' },
  { model: Ingress, module: 'kubernetes-models/networking.k8s.io/v1/Ingress' },
  {
    model: ServiceMonitor,
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
  },
  {
    model: PrometheusRule,
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule',
  },
];

function modelOf(object: K8sObject): (typeof MODELS)[number] | undefined {
  return MODELS.find(({ model }) => model.apiVersion === object.apiVersion && model.kind === object.kind);
}

/**
 * Whether a cluster knows the object's kind without a CustomResourceDefinition: its schema is one of Kubernetes' own
 * (kubernetes-models), not an operator's (@kubernetes-models/…). Unknown kinds count as not built in.
 */
export function isBuiltInKind(object: K8sObject): boolean {
  return modelOf(object)?.module.startsWith('kubernetes-models/') === true;
}

/** Schema violations of each object (types, formats, required fields, enums), one line per violation. */
export function schemaProblems(objects: K8sObject[]): string[] {
  return objects.flatMap((object) => {
    const entry = modelOf(object);
    if (!entry) return [`${refOf(object)}: no schema for ${object.apiVersion} ${object.kind}`];
    // Kustomize folds a generated Secret's base64 into 70-character lines; the API server's decoder skips line
    // breaks, the schema's `byte` format does not.
    const checked =
      object.kind === 'Secret' && object.data
        ? {
            ...object,
            data: Object.fromEntries(Object.entries(object.data).map(([k, v]) => [k, v.replace(/\n/g, '')])),
          }
        : object;
    try {
      new entry.model(checked as never).validate();
      return [];
    } catch (error) {
      const errors = (error as { errors?: Array<{ instancePath: string; message?: string }> }).errors;
      if (!errors) throw error;
      return errors.map(
        (problem) => `${refOf(object)}: ${problem.instancePath || '/'} ${problem.message ?? 'is invalid'}`,
      );
    }
  });
}

/**
 * Field names the API does not know, at any depth. The JSON schemas allow unknown properties (so does the API
 * server unless asked for strict field validation: it drops them with a warning), so a misspelt
 * `readOnlyRootFileSystem` would pass them and silently leave the root filesystem writable. TypeScript's excess
 * property check against the models' interfaces catches it: each object becomes an object literal of its
 * `I<Kind>` type in a program that is compiled in memory, never written.
 */
export function unknownFieldProblems(objects: K8sObject[]): string[] {
  const fileName = join(REPO_ROOT, 'test', '__kubernetes-objects__.ts');
  const imports = new Map<string, string>();
  const statements: string[] = [];
  const owners: Array<{ start: number; end: number; ref: string }> = [];
  const problems: string[] = [];
  let offset = 0;
  objects.forEach((object, index) => {
    const entry = modelOf(object);
    if (!entry) {
      problems.push(`${refOf(object)}: no type for ${object.apiVersion} ${object.kind}`);
      return;
    }
    imports.set(object.kind, `import type { I${object.kind} as T${object.kind} } from '${entry.module}';`);
    const statement = `export const object${index}: T${object.kind} = ${JSON.stringify(object, null, 1)};\n`;
    owners.push({ start: offset, end: offset + statement.length, ref: refOf(object) });
    statements.push(statement);
    offset += statement.length;
  });
  const header = `${[...imports.values()].join('\n')}\n`;
  const source = header + statements.join('');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) =>
    name === fileName
      ? ts.createSourceFile(name, source, language)
      : getSourceFile.call(host, name, language, ...rest);
  host.fileExists = (name) => name === fileName || fileExists.call(host, name);
  host.readFile = (name) => (name === fileName ? source : readFile.call(host, name));
  const program = ts.createProgram({ rootNames: [fileName], options, host });
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    const position = (diagnostic.start ?? 0) - header.length;
    const owner =
      diagnostic.file?.fileName === fileName
        ? owners.find((o) => position >= o.start && position < o.end)
        : undefined;
    problems.push(`${owner?.ref ?? diagnostic.file?.fileName ?? 'program'}: ${message}`);
  }
  return problems;
}
