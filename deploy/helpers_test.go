package deploy_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// requireTool returns the path of a program the test needs. Without it the
// test skips, or fails under CI=true, where every tool must be installed.
func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, name+" is not installed (scripts/install-deps installs it)")
	}
	return p
}

// missing skips the test, or fails it under CI=true.
func missing(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// buildKubecheck builds the schema checker (its own module, with the
// Kubernetes API types) into a temporary directory.
func buildKubecheck(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kubecheck")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join("internal", "kubecheck")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building kubecheck: %v\n%s", err, out)
	}
	return bin
}

// kubecheck runs the checker on files and returns its stdout, stderr and
// exit status.
func kubecheck(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &exit):
		return stdout.String(), stderr.String(), exit.ExitCode()
	default:
		t.Fatalf("kubecheck: %v", err)
		return "", "", -1
	}
}

// object is the part of a Job or a CronJob the tests look at, as
// kubecheck -dump writes it.
type object struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Spec struct {
		Schedule    string  `json:"schedule"`
		Template    podTmpl `json:"template"`
		JobTemplate struct {
			Spec struct {
				Template podTmpl `json:"template"`
			} `json:"spec"`
		} `json:"jobTemplate"`
	} `json:"spec"`
}

type podTmpl struct {
	Spec podSpec `json:"spec"`
}

// pod returns the pod spec of a Job or a CronJob.
func (o object) pod() podSpec {
	if o.Kind == "CronJob" {
		return o.Spec.JobTemplate.Spec.Template.Spec
	}
	return o.Spec.Template.Spec
}

type podSpec struct {
	RestartPolicy string            `json:"restartPolicy"`
	NodeSelector  map[string]string `json:"nodeSelector"`
	Affinity      struct {
		NodeAffinity struct {
			Required struct {
				Terms []struct {
					MatchFields []struct {
						Key      string   `json:"key"`
						Operator string   `json:"operator"`
						Values   []string `json:"values"`
					} `json:"matchFields"`
				} `json:"nodeSelectorTerms"`
			} `json:"requiredDuringSchedulingIgnoredDuringExecution"`
		} `json:"nodeAffinity"`
	} `json:"affinity"`
	InitContainers []container `json:"initContainers"`
	Containers     []container `json:"containers"`
	Volumes        []volume    `json:"volumes"`
}

// nodes returns the node names the pod is pinned to by metadata.name.
func (p podSpec) nodes() []string {
	var names []string
	for _, term := range p.Affinity.NodeAffinity.Required.Terms {
		for _, f := range term.MatchFields {
			if f.Key == "metadata.name" && f.Operator == "In" {
				names = append(names, f.Values...)
			}
		}
	}
	return names
}

func (p podSpec) container(name string) (container, bool) {
	for _, c := range append(append([]container{}, p.InitContainers...), p.Containers...) {
		if c.Name == name {
			return c, true
		}
	}
	return container{}, false
}

func (p podSpec) volume(name string) (volume, bool) {
	for _, v := range p.Volumes {
		if v.Name == name {
			return v, true
		}
	}
	return volume{}, false
}

type container struct {
	Name      string   `json:"name"`
	Image     string   `json:"image"`
	Command   []string `json:"command"`
	Args      []string `json:"args"`
	Env       []envVar `json:"env"`
	Resources struct {
		Limits map[string]string `json:"limits"`
	} `json:"resources"`
	SecurityContext struct {
		ReadOnlyRootFilesystem   *bool `json:"readOnlyRootFilesystem"`
		AllowPrivilegeEscalation *bool `json:"allowPrivilegeEscalation"`
		Capabilities             struct {
			Drop []string `json:"drop"`
		} `json:"capabilities"`
	} `json:"securityContext"`
	VolumeMounts []struct {
		Name      string `json:"name"`
		MountPath string `json:"mountPath"`
		SubPath   string `json:"subPath"`
		ReadOnly  bool   `json:"readOnly"`
	} `json:"volumeMounts"`
}

type envVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func (c container) env(name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

type volume struct {
	Name     string `json:"name"`
	HostPath *struct {
		Path string `json:"path"`
	} `json:"hostPath"`
	Secret *struct {
		SecretName  string `json:"secretName"`
		DefaultMode *int   `json:"defaultMode"`
		Items       []struct {
			Key  string `json:"key"`
			Path string `json:"path"`
		} `json:"items"`
	} `json:"secret"`
	EmptyDir *struct{} `json:"emptyDir"`
}

// decodeObjects checks files with kubecheck -dump and returns the objects.
func decodeObjects(t *testing.T, bin string, files ...string) []object {
	t.Helper()
	stdout, stderr, code := kubecheck(t, bin, append([]string{"-dump"}, files...)...)
	if code != 0 {
		t.Fatalf("kubecheck %v: exit %d\n%s", files, code, stderr)
	}
	var objs []object
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var o object
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("kubecheck -dump: %v: %s", err, sc.Text())
		}
		objs = append(objs, o)
	}
	return objs
}

// only returns the single object of kind in objs.
func only(t *testing.T, objs []object, kind string) object {
	t.Helper()
	var found []object
	for _, o := range objs {
		if o.Kind == kind {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s, got %d", kind, len(found))
	}
	return found[0]
}
