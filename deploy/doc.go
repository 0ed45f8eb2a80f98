// Package deploy holds no Go code of appraise: its tests check the
// deployment files beside it. The Kubernetes manifests (kubernetes/) must
// pass a strict schema check against the Kubernetes API's own types
// (internal/kubecheck, a helper module) and say what the fleet needs; the
// Slurm and NHC wrappers (slurm/) must map `appraise check`'s exit status to
// a node state; and the image that scripts/image builds must run an
// appraisal on the software Vulkan device under podman.
package deploy
