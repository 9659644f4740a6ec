// Validates every document of a Kubernetes manifest file against the JSON schema of its kind: Kubernetes'
// own (kubernetes-models) and KEDA's (@kubernetes-models/keda). Prints one line per document; exits 1 when a
// document is invalid or of a kind it has no schema for, 2 on bad usage.
//
// Usage: node validate.mjs target/kubernetes/kubernetes.yml
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { Service } from "kubernetes-models/v1/Service";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject";
import { TriggerAuthentication } from "@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication";

const MODELS = {
  "apps/v1 Deployment": Deployment,
  "v1 Service": Service,
  "policy/v1 PodDisruptionBudget": PodDisruptionBudget,
  "keda.sh/v1alpha1 ScaledObject": ScaledObject,
  "keda.sh/v1alpha1 TriggerAuthentication": TriggerAuthentication,
};

const file = process.argv[2];
if (!file) {
  console.error("usage: node validate.mjs <manifest.yml>");
  process.exit(2);
}
const documents = parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJS()).filter((d) => d);
let invalid = 0;
for (const resource of documents) {
  const type = `${resource.apiVersion} ${resource.kind}`;
  const name = `${type} ${resource.metadata?.name}`;
  const Model = MODELS[type];
  if (!Model) {
    console.log(`INVALID ${name}: no schema for this kind`);
    invalid++;
    continue;
  }
  try {
    new Model(resource).validate();
    console.log(`valid ${name}`);
  } catch (error) {
    console.log(`INVALID ${name}: ${error.message}`);
    invalid++;
  }
}
console.log(`${documents.length} documents, ${invalid} invalid`);
process.exit(invalid === 0 && documents.length > 0 ? 0 : 1);
