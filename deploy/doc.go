// Package deploy holds no Go code of appraise: its tests check the deployment
// files beside it, the Kubernetes manifests, the Slurm and NHC wrappers and the
// container image.
package deploy
