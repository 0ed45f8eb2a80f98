package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const gib = 1 << 30

// fakeTree writes files (path relative to the root: contents) below a new
// root and returns it.
func fakeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func meminfo(kb string) string {
	return "MemTotal:       536870912 kB\nMemFree:        1000 kB\nMemAvailable:   " + kb + " kB\n"
}

func TestReadMemory(t *testing.T) {
	const node = "536870912" // 512 GiB available on the node
	for _, c := range []struct {
		name       string
		files      map[string]string
		wantUsable uint64
		wantCgroup string
	}{
		{"no cgroup file: MemAvailable", map[string]string{"proc/meminfo": meminfo("4194304")}, 4 * gib, ""},
		{"v2, limit on the job, 4 GiB of a 512 GiB node", map[string]string{
			"proc/meminfo":                                   meminfo(node),
			"proc/self/cgroup":                               "0::/slurm/job42/step0\n",
			"sys/fs/cgroup/slurm/job42/memory.max":           "4294967296\n",
			"sys/fs/cgroup/slurm/job42/memory.current":       "1073741824\n",
			"sys/fs/cgroup/slurm/job42/memory.stat":          "anon 1\ninactive_file 536870912\n",
			"sys/fs/cgroup/slurm/job42/step0/memory.max":     "max\n",
			"sys/fs/cgroup/slurm/job42/step0/memory.current": "1\n",
		}, 4*gib - 1*gib + gib/2, "v2:/slurm/job42"},
		{"v2, the tighter of two ancestors binds", map[string]string{
			"proc/meminfo":                     meminfo(node),
			"proc/self/cgroup":                 "0::/a/b\n",
			"sys/fs/cgroup/a/memory.max":       "8589934592\n",
			"sys/fs/cgroup/a/memory.current":   "7516192768\n",
			"sys/fs/cgroup/a/b/memory.max":     "4294967296\n",
			"sys/fs/cgroup/a/b/memory.current": "0\n",
		}, 1 * gib, "v2:/a"},
		{"v2, no limit anywhere", map[string]string{
			"proc/meminfo":                            meminfo("2097152"),
			"proc/self/cgroup":                        "0::/user.slice\n",
			"sys/fs/cgroup/user.slice/memory.max":     "max\n",
			"sys/fs/cgroup/user.slice/memory.current": "100\n",
		}, 2 * gib, ""},
		{"v1 with v2 unified beside it (hybrid), v1 limit 3 GiB", map[string]string{
			"proc/meminfo":     meminfo(node),
			"proc/self/cgroup": "9:name=systemd:/\n4:memory:/matrix\n3:cpu,cpuacct:/\n0::/\n",
			"sys/fs/cgroup/memory/matrix/memory.limit_in_bytes": "3221225472\n",
			"sys/fs/cgroup/memory/matrix/memory.usage_in_bytes": "1073741824\n",
			"sys/fs/cgroup/memory/matrix/memory.stat":           "inactive_file 5\ntotal_inactive_file 0\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":        "9223372036854771712\n",
			"sys/fs/cgroup/memory/memory.usage_in_bytes":        "1000000000000\n",
		}, 2 * gib, "v1:/matrix"},
		{"v1 in a container: the host's path, the container's cgroup at the mount", map[string]string{
			"proc/meminfo":     meminfo(node),
			"proc/self/cgroup": "4:memory:/kubepods/pod1/abc\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "4294967296\n",
			"sys/fs/cgroup/memory/memory.usage_in_bytes": "0\n",
		}, 4 * gib, "v1:/"},
		{"cgroup over its limit: nothing usable", map[string]string{
			"proc/meminfo":                   meminfo(node),
			"proc/self/cgroup":               "0::/x\n",
			"sys/fs/cgroup/x/memory.max":     "1073741824\n",
			"sys/fs/cgroup/x/memory.current": "2147483648\n",
		}, 0, "v2:/x"},
		{"MemAvailable below the cgroup's room binds", map[string]string{
			"proc/meminfo":                   meminfo("1048576"),
			"proc/self/cgroup":               "0::/x\n",
			"sys/fs/cgroup/x/memory.max":     "4294967296\n",
			"sys/fs/cgroup/x/memory.current": "0\n",
		}, 1 * gib, "v2:/x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := ReadMemory(fakeTree(t, c.files))
			if err != nil {
				t.Fatal(err)
			}
			if m.UsableBytes != c.wantUsable || m.Cgroup != c.wantCgroup {
				t.Errorf("ReadMemory = %d bytes (%s), cgroup %q; want %d, %q", m.UsableBytes, m, m.Cgroup, c.wantUsable, c.wantCgroup)
			}
			if m.Cgroup != "" && !strings.Contains(m.String(), m.Cgroup) {
				t.Errorf("String() %q does not name the cgroup", m)
			}
		})
	}
}

func TestReadMemoryNoMeminfo(t *testing.T) {
	if _, err := ReadMemory(fakeTree(t, map[string]string{"proc/self/cgroup": "0::/\n"})); err == nil {
		t.Fatal("ReadMemory without meminfo succeeded")
	}
}

func TestParseMemAvailable(t *testing.T) {
	got, err := ParseMemAvailable(strings.NewReader(meminfo("24354576") + "Buffers: 1 kB\n"))
	if err != nil || got != 24354576*1024 {
		t.Fatalf("ParseMemAvailable = %d, %v; want %d", got, err, 24354576*1024)
	}
	for name, text := range map[string]string{
		"missing":   "MemTotal: 1 kB\nMemFree: 1 kB\n",
		"no unit":   "MemAvailable: 12\n",
		"bad value": "MemAvailable: x kB\n",
		"empty":     "",
	} {
		if _, err := ParseMemAvailable(strings.NewReader(text)); err == nil {
			t.Errorf("%s: ParseMemAvailable(%q) succeeded", name, text)
		}
	}
}
