package deploy_test

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The manifests as committed, in deploy/kubernetes.
var manifests = []string{
	"kubernetes/namespace.yaml",
	"kubernetes/appraise-job.yaml",
	"kubernetes/check-cronjob.yaml",
}

const (
	appraiseDir  = "/var/lib/appraise"
	cardsDir     = appraiseDir + "/cards"
	featuresDir  = "/etc/kubernetes/node-feature-discovery/features.d"
	capabilities = "compute,utility,graphics"
)

// kubectl apply --dry-run=client needs an API server even to map a kind to
// its resource, so the manifests are checked without a cluster: decoded
// strictly into the Kubernetes API's Go types, plus the name, label and
// reference rules the API server would apply.
func TestManifestsPassSchemaCheck(t *testing.T) {
	bin := buildKubecheck(t)
	stdout, stderr, code := kubecheck(t, bin, manifests...)
	if code != 0 {
		t.Fatalf("kubecheck: exit %d\n%s", code, stderr)
	}
	want := "ok kubernetes/namespace.yaml: Namespace/appraise\n" +
		"ok kubernetes/appraise-job.yaml: Job/appraise-gpu-node-0\n" +
		"ok kubernetes/check-cronjob.yaml: CronJob/appraise-check-gpu-node-0\n"
	if stdout != want {
		t.Errorf("kubecheck checked\n%s\nwant\n%s", stdout, want)
	}
}

// The schema check refuses what the API server would: each case breaks the
// committed Job one way.
func TestSchemaCheckRefusesBrokenManifests(t *testing.T) {
	bin := buildKubecheck(t)
	job, err := os.ReadFile("kubernetes/appraise-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"misspelt field", "      nodeSelector:", "      nodeSelecter:", `unknown field "spec.template.spec.nodeSelecter"`},
		{"wrong type", "backoffLimit: 0", "backoffLimit: none", "backoffLimit"},
		{"bad quantity", "nvidia.com/gpu: 8", "nvidia.com/gpu: eight", "quantities must match"},
		{"bad name", "name: appraise-gpu-node-0", "name: Appraise_GPU", "metadata.name"},
		{"undeclared volume", "        - name: features-d\n          hostPath:", "        - name: features\n          hostPath:", "volumeMounts[features-d]: no volume of that name"},
		{"restart policy", "restartPolicy: Never", "restartPolicy: Always", "restartPolicy: a Job's must be Never or OnFailure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			broken := strings.Replace(string(job), tc.old, tc.new, 1)
			if broken == string(job) {
				t.Fatalf("the Job has no %q to break", tc.old)
			}
			f := filepath.Join(t.TempDir(), "job.yaml")
			if err := os.WriteFile(f, []byte(broken), 0o644); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := kubecheck(t, bin, f)
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("kubecheck: exit %d, stderr\n%s\nwant exit 1 and %q", code, stderr, tc.want)
			}
		})
	}
}

func TestJobAppraisesTheNodeAndWritesTheFeatureFile(t *testing.T) {
	job := only(t, decodeObjects(t, buildKubecheck(t), manifests...), "Job")
	pod := job.pod()
	checkGPUPod(t, pod, "appraise", "gpu-node-0", "8")
	if job.Metadata.Namespace != "appraise" {
		t.Errorf("namespace %q, want appraise", job.Metadata.Namespace)
	}

	// The appraisal writes a new run and then links cards to it; the image
	// test runs the script.
	appraise, _ := pod.container("appraise")
	if len(appraise.Command) != 4 || appraise.Command[0] != "/bin/sh" || appraise.Command[1] != "-c" ||
		!strings.Contains(appraise.Command[2], "mv -T .cards.new cards") {
		t.Errorf("appraise command %q, want the script that links cards to the new run", appraise.Command)
	}
	checkHostMount(t, pod, appraise, appraiseDir, false)
	checkSigningKey(t, pod, appraise)

	// The step after the appraisal, the command line of `appraise export nfd`.
	export, ok := pod.container("export-nfd")
	if !ok {
		t.Fatal("no export-nfd container")
	}
	want := []string{"export", "nfd", "--trust", "/keys/pub.json", "--out", featuresDir + "/appraise", cardsDir}
	if !slices.Equal(export.Args, want) {
		t.Errorf("export-nfd args %q, want %q", export.Args, want)
	}
	if !slices.ContainsFunc(pod.InitContainers, func(c container) bool { return c.Name == "appraise" }) ||
		!slices.ContainsFunc(pod.Containers, func(c container) bool { return c.Name == "export-nfd" }) {
		t.Error("the appraisal must be an init container, so the export runs only after it succeeded")
	}
	checkHostMount(t, pod, export, appraiseDir, true)
	checkHostMount(t, pod, export, featuresDir, false)
	trustMount := mountAt(export, "/keys")
	v, ok := pod.volume(trustMount)
	if !ok || v.Secret == nil || len(v.Secret.Items) != 1 || v.Secret.Items[0].Path != "pub.json" {
		t.Errorf("/keys in export-nfd is volume %q (%+v), want a Secret holding pub.json alone", trustMount, v)
	}
}

func TestCheckCronJobComparesWithTheCards(t *testing.T) {
	cron := only(t, decodeObjects(t, buildKubecheck(t), manifests...), "CronJob")
	pod := cron.pod()
	checkGPUPod(t, pod, "check", "gpu-node-0", "8")
	c, _ := pod.container("check")
	want := []string{"check", "--against", cardsDir, "--budget", "30s"}
	if !slices.Equal(c.Args, want) {
		t.Errorf("check args %q, want %q", c.Args, want)
	}
	checkHostMount(t, pod, c, appraiseDir, true)
	if cron.Spec.Schedule == "" {
		t.Error("no schedule")
	}
}

// checkGPUPod checks what every pod of ours on a GPU node needs: pinned to
// the node by name among GPU nodes, the GPU container asking for the
// node's GPUs with the capabilities that bring the Vulkan ICD.
func checkGPUPod(t *testing.T, pod podSpec, gpuContainer, node, gpus string) {
	t.Helper()
	if pod.RestartPolicy != "Never" {
		t.Errorf("restartPolicy %q, want Never", pod.RestartPolicy)
	}
	if got := pod.NodeSelector["nvidia.com/gpu.present"]; got != "true" {
		t.Errorf("nodeSelector nvidia.com/gpu.present=%q, want true", got)
	}
	if got := pod.nodes(); !slices.Equal(got, []string{node}) {
		t.Errorf("pinned to nodes %q, want [%s]", got, node)
	}
	c, ok := pod.container(gpuContainer)
	if !ok {
		t.Fatalf("no container %s", gpuContainer)
	}
	if got := c.Resources.Limits["nvidia.com/gpu"]; got != gpus {
		t.Errorf("%s asks for %q GPUs, want %s", gpuContainer, got, gpus)
	}
	if got, _ := c.env("NVIDIA_DRIVER_CAPABILITIES"); got != capabilities {
		t.Errorf("%s: NVIDIA_DRIVER_CAPABILITIES=%q, want %s", gpuContainer, got, capabilities)
	}
}

// checkHostMount checks that c sees the host directory dir at the same
// path, read-only or not.
func checkHostMount(t *testing.T, pod podSpec, c container, dir string, readOnly bool) {
	t.Helper()
	for _, m := range c.VolumeMounts {
		if m.MountPath != dir {
			continue
		}
		v, _ := pod.volume(m.Name)
		if v.HostPath == nil || v.HostPath.Path != dir {
			t.Errorf("%s: %s is not the host's %s", c.Name, dir, dir)
		}
		if m.ReadOnly != readOnly {
			t.Errorf("%s: %s readOnly=%v, want %v", c.Name, dir, m.ReadOnly, readOnly)
		}
		return
	}
	t.Errorf("%s does not mount %s", c.Name, dir)
}

// checkSigningKey checks that the appraise container finds the key where
// the key store reads it: key.json alone through subPath (a Secret volume's
// files are symbolic links, which the store refuses) in APPRAISE_KEY_DIR,
// mode 0400, and the passphrase file its script names.
func checkSigningKey(t *testing.T, pod podSpec, c container) {
	t.Helper()
	dir, ok := c.env("APPRAISE_KEY_DIR")
	if !ok {
		t.Fatal("appraise: no APPRAISE_KEY_DIR")
	}
	if strings.HasPrefix(dir+"/", appraiseDir+"/") {
		t.Errorf("APPRAISE_KEY_DIR %s is in the host's %s: its mount point would be left on the node", dir, appraiseDir)
	}
	var keyVolume string
	for _, m := range c.VolumeMounts {
		if m.MountPath == path.Join(dir, "key.json") && m.SubPath == "key.json" && m.ReadOnly {
			keyVolume = m.Name
		}
	}
	v, ok := pod.volume(keyVolume)
	if !ok || v.Secret == nil {
		t.Fatalf("appraise: %s/key.json is not a read-only subPath mount of a Secret", dir)
	}
	if v.Secret.DefaultMode == nil || *v.Secret.DefaultMode != 0o400 {
		t.Errorf("the key's Secret volume has mode %v, want 0400", v.Secret.DefaultMode)
	}
	var passFile string
	if m := regexp.MustCompile(`--passphrase-file=(\S+)`).FindStringSubmatch(strings.Join(c.Command, " ")); m != nil {
		passFile = m[1]
	}
	if m := mountAt(c, path.Dir(passFile)); passFile == "" || m != keyVolume {
		t.Errorf("appraise: passphrase file %q is not in the key's Secret", passFile)
	}
}

// mountAt returns the name of the volume c mounts at dir.
func mountAt(c container, dir string) string {
	for _, m := range c.VolumeMounts {
		if m.MountPath == dir && m.SubPath == "" {
			return m.Name
		}
	}
	return ""
}

// per-node stamps a template for each node: names that are DNS labels,
// distinct and short enough for a CronJob, the node's own name in the
// affinity, its GPU count, and the image given.
func TestPerNodeStampsOneObjectPerNode(t *testing.T) {
	bin := buildKubecheck(t)
	nodes := map[string]string{
		"gpu01":                "4",
		"gpu-node.example.com": "2",
		"gpu-node-example-com": "2",
		"rack7-a-very-long-node-name-for-a-gpu-host.cluster.example.internal": "8",
	}
	var args []string
	for n, g := range nodes {
		args = append(args, n+"="+g)
	}
	slices.Sort(args)
	const image = "registry.example/appraise:1.2.3"
	// Both templates' outputs joined, as docs/fleets.md pipes them to kubectl.
	var out []byte
	for _, tmpl := range []string{"kubernetes/appraise-job.yaml", "kubernetes/check-cronjob.yaml"} {
		b, err := exec.Command("kubernetes/per-node", append([]string{"--image", image, tmpl}, args...)...).Output()
		if err != nil {
			t.Fatalf("per-node %s: %v", tmpl, err)
		}
		out = append(out, b...)
	}
	f := filepath.Join(t.TempDir(), "stamped.yaml")
	if err := os.WriteFile(f, out, 0o644); err != nil {
		t.Fatal(err)
	}
	objs := decodeObjects(t, bin, f)
	for _, kind := range []string{"Job", "CronJob"} {
		t.Run(kind, func(t *testing.T) {
			objs := slices.DeleteFunc(slices.Clone(objs), func(o object) bool { return o.Kind != kind })
			if len(objs) != len(nodes) {
				t.Fatalf("%d %ss for %d nodes", len(objs), kind, len(nodes))
			}
			names := map[string]bool{}
			for _, o := range objs {
				pod := o.pod()
				pinned := pod.nodes()
				if len(pinned) != 1 || nodes[pinned[0]] == "" {
					t.Fatalf("%s pinned to %q", o.Metadata.Name, pinned)
				}
				gpu := "appraise"
				if o.Kind == "CronJob" {
					gpu = "check"
				}
				checkGPUPod(t, pod, gpu, pinned[0], nodes[pinned[0]])
				for _, c := range append(pod.InitContainers, pod.Containers...) {
					if c.Image != image {
						t.Errorf("%s: %s image %q, want %s", o.Metadata.Name, c.Name, c.Image, image)
					}
				}
				if names[o.Metadata.Name] {
					t.Errorf("two objects named %s", o.Metadata.Name)
				}
				names[o.Metadata.Name] = true
			}
		})
	}
}

func TestPerNodeRefusesBadInput(t *testing.T) {
	broken := filepath.Join(t.TempDir(), "job.yaml")
	if err := os.WriteFile(broken, []byte("kind: Job\nmetadata:\n  name: appraise-other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"kubernetes/appraise-job.yaml"}, 2},
		{[]string{"kubernetes/appraise-job.yaml", "gpu01"}, 2},
		{[]string{"kubernetes/appraise-job.yaml", "gpu01="}, 2},
		{[]string{"kubernetes/appraise-job.yaml", "gpu01=0"}, 2},
		{[]string{"kubernetes/appraise-job.yaml", "GPU_01=4"}, 2},
		{[]string{"--image", "a|b", "kubernetes/appraise-job.yaml", "gpu01=4"}, 2},
		{[]string{broken, "gpu01=4"}, 1},
	} {
		err := exec.Command("kubernetes/per-node", tc.args...).Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code {
			t.Errorf("per-node %s: exit %d, want %s", strings.Join(tc.args, " "), code, strconv.Itoa(tc.code))
		}
	}
}
