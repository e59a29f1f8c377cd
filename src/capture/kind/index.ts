// The kind driver's public surface: the driver itself, and the pure pieces the
// capture and the tests build on (argv builders, parsers, ownership rules).
export { KindDriver, DEFAULT_KIND_TIMEOUTS, kindStatePaths } from './driver.ts';
export type { KindDriverOptions, KindTimeouts } from './driver.ts';
export * as kindCommands from './commands.ts';
export { renderKindConfig, checkNodeNaming, expectedNodeNames, OWNER_LABEL, OWNER_VALUE, RUN_LABEL } from './config.ts';
export { declaredObjects } from '../cluster/manifest-objects.ts';
export type { DeclaredObjects, DeclaredService, ObjectRef } from '../cluster/manifest-objects.ts';
export { decideClusterAction, isOwned, markerPath, parseMarker, readMarker } from './ownership.ts';
export type { ClusterAction, ContainerRef, OwnerMarker } from './ownership.ts';
export {
  healthChecksToAwait, logicalNodeName, parseNodeList, parsePodList, parseServiceList, toNodeInfos, toPodInfos, toServiceInfos,
} from '../cluster/topology.ts';
export {
  parseContainerList, parseDockerVersion, parseIptablesVersion, parseKindClusters, parseKindVersion, parseKubectlVersion,
  parseLocalEndpoints, ToolOutputError,
} from './tool-output.ts';
