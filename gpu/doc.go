// Package gpu measures a GPU through WebGPU (wgpu-native) and checks every
// figure against a CPU reference or a closed form before it counts.
//
// Open a Device on one of (*Instance).Adapters and run the probes on it:
// StreamProbe (memory bandwidth), ALUProbe (vector ALU), RooflineProbe,
// CapacityProbe (usable memory), IntegrityProbe (memtest) and SoakProbe
// (thermal envelope). A kernel whose output disagrees with its reference
// fails the probe with an error wrapping ErrCheckFailed, never a figure.
// Release on an Instance or Device is safe twice; a Device is not safe for
// concurrent use.
package gpu
