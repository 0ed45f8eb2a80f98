// Package link measures the host link and launch latency through raw
// Vulkan, each figure on the faster of a few candidate paths the device
// offers, every move checked. HostLinkProbe is the probe the appraisal runs.
package link
