package deploy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// podman is the image's container engine for the test, with its own
// storage in a temporary directory, so that the test neither reads nor
// changes the machine's images. The driver is overlay (vfs, which needs no
// kernel support, copies the 400 MB image for every container).
type podman struct {
	t   *testing.T
	env []string
}

// newPodman writes the storage and engine configuration podman reads
// through CONTAINERS_STORAGE_CONF and CONTAINERS_CONF, and removes what is
// left of the test's containers and images at its end, so no layer stays
// mounted in the temporary directory. The engine settings are what a root shell in a
// sandbox that is itself a container needs, and work on a plain host as
// well: runc, because crun refuses a host whose cgroups are mixed v1 and
// v2; and explicit rlimits, because podman's defaults (a million open
// files) exceed a hard limit that a sandbox without CAP_SYS_RESOURCE
// cannot raise.
func newPodman(t *testing.T) *podman {
	t.Helper()
	// A short path: conmon's sockets live under the runroot, and past the
	// 108 bytes of a socket's name (as under t.TempDir()) podman falls back
	// to a 20-second timeout for every container's exit.
	dir, err := os.MkdirTemp("", "podman-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	storage := fmt.Sprintf("[storage]\ndriver = \"overlay\"\ngraphroot = %q\nrunroot = %q\n",
		filepath.Join(dir, "graph"), filepath.Join(dir, "run"))
	engine := "[containers]\ndefault_ulimits = [\"nofile=1024:1024\", \"nproc=4096:4096\"]\n" +
		"[engine]\nruntime = \"runc\"\nevents_logger = \"file\"\ncgroup_manager = \"cgroupfs\"\n"
	for name, body := range map[string]string{"storage.conf": storage, "containers.conf": engine} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := &podman{t: t, env: append(os.Environ(),
		"CONTAINERS_STORAGE_CONF="+filepath.Join(dir, "storage.conf"),
		"CONTAINERS_CONF="+filepath.Join(dir, "containers.conf"))}
	t.Cleanup(func() {
		for _, args := range [][]string{{"rm", "--all", "--force"}, {"rmi", "--all", "--force"}} {
			if out, err := p.cmd("podman", args...).CombinedOutput(); err != nil {
				t.Errorf("podman %s: %v\n%s", args[0], err, out)
			}
		}
	})
	return p
}

// cmd returns a command with podman's configuration in its environment.
func (p *podman) cmd(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = p.env
	return c
}

// run runs a container of image with no network, never pulling, and
// returns its stdout; a non-zero exit fails the test, with its stderr.
func (p *podman) run(image string, flags []string, args ...string) string {
	p.t.Helper()
	out, stderr, err := p.try(image, flags, args...)
	if err != nil {
		p.t.Fatalf("podman run %s %q: %v\n%s", image, args, err, stderr)
	}
	return out
}

// try runs a container like run and returns its stdout, its stderr and
// how it ended.
func (p *podman) try(image string, flags []string, args ...string) (string, string, error) {
	all := append([]string{"run", "--rm", "--pull=never", "--network=none"}, flags...)
	c := p.cmd("podman", append(append(all, image), args...)...)
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	return string(out), stderr.String(), err
}

// entrypoint returns the podman flags that run c's command, if it has one,
// in place of the image's entrypoint.
func entrypoint(t *testing.T, c container) []string {
	t.Helper()
	if len(c.Command) == 0 {
		return nil
	}
	b, err := json.Marshal(c.Command)
	if err != nil {
		t.Fatal(err)
	}
	return []string{"--entrypoint", string(b)}
}

// The image scripts/image builds runs appraise on the software Vulkan
// device: version and devices, then an appraisal with the Job's own
// container spec (its script, environment, mounts of the host, the
// Secret's files with the Secret's modes, a read-only root and no
// capabilities) plus --software --quick --soak 0, whose cards verify with
// the export step's mounts, and on the host; a failed appraisal after it
// leaves the cards link where it was.
func TestImageAppraisesTheSoftwareDevice(t *testing.T) {
	for _, tool := range []string{"mmdebstrap", "podman", "runc"} {
		requireTool(t, tool)
	}
	if os.Geteuid() != 0 {
		missing(t, "building the image needs root (mmdebstrap's root mode, rootful podman)")
	}
	p := newPodman(t)
	const image = "localhost/appraise:test"
	start := time.Now()
	build := p.cmd("scripts/image", "--tag", image)
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/image: %v\n%s", err, out)
	}
	t.Logf("scripts/image took %s", time.Since(start).Round(time.Second))

	start = time.Now()
	host := filepath.Join(t.TempDir(), "appraise")
	gobuild := exec.Command("go", "build", "-o", host, "./cmd/appraise")
	gobuild.Dir = ".."
	if out, err := gobuild.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Logf("go build took %s", time.Since(start).Round(time.Second))
	want, err := exec.Command(host, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := p.run(image, nil, "version"); got != string(want) {
		t.Errorf("appraise version in the image: %q, built here: %q", got, want)
	}
	checkSoftwareDevice(t, p.run(image, nil, "devices", "--software", "--json"))
	t.Logf("version and devices took %s", time.Since(start).Round(time.Second))
	start = time.Now()

	job := only(t, decodeObjects(t, buildKubecheck(t), "kubernetes/appraise-job.yaml"), "Job").pod()
	secrets := makeSigningKey(t, p, image)
	t.Logf("kubecheck and the key took %s", time.Since(start).Round(time.Second))
	hostRoot := t.TempDir()
	appraise, _ := job.container("appraise")
	flags := append(containerFlags(t, job, appraise, hostRoot, secrets), entrypoint(t, appraise)...)
	start = time.Now()
	p.run(image, flags, append(slices.Clone(appraise.Args), "--software", "--quick", "--soak", "0")...)
	t.Logf("the appraisal in the image took %s", time.Since(start).Round(time.Second))
	start = time.Now()

	// cards links to the run, relatively, so it resolves on the host too.
	cards := filepath.Join(hostRoot, "appraise-dir", "cards")
	run, err := os.Readlink(cards)
	if err != nil || !strings.HasPrefix(run, "runs/") {
		t.Fatalf("cards: link to %q (%v), want one into runs/", run, err)
	}
	card := filepath.Join(cards, "card-software-0.appraisal.json")
	checkSoftwareCard(t, card)
	// A failed appraisal leaves cards on the last good run.
	if _, stderr, err := p.try(image, flags, "--device", "no-such-device"); err == nil {
		t.Errorf("an appraisal of no device succeeded:\n%s", stderr)
	}
	if again, err := os.Readlink(cards); again != run {
		t.Errorf("after a failed appraisal cards links to %q (%v), want %q", again, err, run)
	}
	// The export step's mounts give it the cards and the pinned key.
	export, _ := job.container("export-nfd")
	p.run(image, containerFlags(t, job, export, hostRoot, secrets), "verify", cardsDir, "--trust", "/keys/pub.json")
	if out, err := exec.Command(host, "verify", card, "--trust", filepath.Join(secrets, "pub.json")).CombinedOutput(); err != nil {
		t.Errorf("verifying the image's card on the host: %v\n%s", err, out)
	}
	t.Logf("verifying took %s", time.Since(start).Round(time.Second))
}

// device is an entry of `appraise devices --json`.
type device struct {
	Included bool `json:"included"`
	Adapter  *struct {
		Software bool `json:"software"`
	} `json:"adapter"`
}

func checkSoftwareDevice(t *testing.T, devicesJSON string) {
	t.Helper()
	var devices []device
	if err := json.Unmarshal([]byte(devicesJSON), &devices); err != nil {
		t.Fatalf("appraise devices --json: %v\n%s", err, devicesJSON)
	}
	if !slices.ContainsFunc(devices, func(d device) bool { return d.Included && d.Adapter != nil && d.Adapter.Software }) {
		t.Errorf("no software adapter included in the image:\n%s", devicesJSON)
	}
}

func checkSoftwareCard(t *testing.T, card string) {
	t.Helper()
	b, err := os.ReadFile(card)
	if err != nil {
		t.Fatalf("the appraisal wrote no card: %v", err)
	}
	var c struct {
		Payload struct {
			Capability struct {
				Identity struct {
					Software bool `json:"software"`
				} `json:"identity"`
				Probes []json.RawMessage `json:"probes"`
			} `json:"capability"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", card, err)
	}
	if !c.Payload.Capability.Identity.Software || len(c.Payload.Capability.Probes) == 0 {
		t.Errorf("%s: identity.software=%v with %d probes, want a software card with probes",
			card, c.Payload.Capability.Identity.Software, len(c.Payload.Capability.Probes))
	}
}

// makeSigningKey creates a tenant key with the image and returns a
// directory holding what the Secret holds: key.json, passphrase, pub.json.
func makeSigningKey(t *testing.T, p *podman, image string) string {
	t.Helper()
	work := t.TempDir()
	env := []string{"-v", work + ":/work", "-e", "APPRAISE_KEY_DIR=/work/keys", "-e", "APPRAISE_PASSPHRASE=ci"}
	p.run(image, env, "keys", "init", "--tenant", "ci")
	pub := p.run(image, env, "keys", "export-public")
	secrets := t.TempDir()
	key, err := os.ReadFile(filepath.Join(work, "keys", "key.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"key.json": string(key), "passphrase": "ci\n", "pub.json": pub} {
		if err := os.WriteFile(filepath.Join(secrets, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return secrets
}

// containerFlags turns c's environment, mounts and security context in
// the pod into podman flags: a hostPath becomes a directory under
// hostRoot named after the volume, a Secret volume a directory of the
// items it selects from secrets with the volume's mode, an emptyDir a
// tmpfs.
func containerFlags(t *testing.T, pod podSpec, c container, hostRoot, secrets string) []string {
	t.Helper()
	flags := []string{"--read-only", "--cap-drop=ALL", "--security-opt=no-new-privileges"}
	if sc := c.SecurityContext; sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		!slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) {
		t.Fatalf("%s: securityContext %+v, want a read-only root, no privilege escalation, no capabilities", c.Name, sc)
	}
	for _, e := range c.Env {
		flags = append(flags, "-e", e.Name+"="+e.Value)
	}
	for _, m := range c.VolumeMounts {
		v, ok := pod.volume(m.Name)
		if !ok {
			t.Fatalf("%s mounts undeclared volume %s", c.Name, m.Name)
		}
		var src string
		switch {
		case v.HostPath != nil:
			src = filepath.Join(hostRoot, m.Name)
			if err := os.MkdirAll(src, 0o755); err != nil {
				t.Fatal(err)
			}
		case v.Secret != nil:
			src = secretVolume(t, v, secrets)
		case v.EmptyDir != nil:
			flags = append(flags, "--tmpfs="+m.MountPath)
			continue
		default:
			t.Fatalf("volume %s: a kind the test does not map", m.Name)
		}
		if m.SubPath != "" {
			src = filepath.Join(src, m.SubPath)
		}
		mode := "rw"
		if m.ReadOnly {
			mode = "ro"
		}
		flags = append(flags, "-v", src+":"+m.MountPath+":"+mode)
	}
	return flags
}

// secretVolume lays out a Secret volume's items from secrets in a new
// directory, with the volume's mode.
func secretVolume(t *testing.T, v volume, secrets string) string {
	t.Helper()
	dir := t.TempDir()
	mode := os.FileMode(0o644)
	if v.Secret.DefaultMode != nil {
		mode = os.FileMode(*v.Secret.DefaultMode)
	}
	for _, it := range v.Secret.Items {
		b, err := os.ReadFile(filepath.Join(secrets, it.Key))
		if err != nil {
			t.Fatalf("secret item %s: %v", it.Key, err)
		}
		f := filepath.Join(dir, it.Path)
		if err := os.WriteFile(f, b, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(f, mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
