// Command kubecheck checks Kubernetes manifests without a cluster: every
// document of every file given is decoded strictly into the Kubernetes API's
// own Go types (k8s.io/api, the types the API server decodes into), so an
// unknown or misspelt field, a duplicate field or a value of the wrong type is
// an error, as it is for the API server with fieldValidation=Strict. On the
// decoded objects it then checks what the API server's validation would
// refuse and a decode cannot see: names, label keys and values, environment
// variable names, containers without an image, mounts of undeclared volumes,
// a Job's restart policy.
//
// It prints "ok FILE: Kind/name" for each object that passes (with -dump: the
// object as one line of JSON instead, for tests to inspect) and one line per
// finding on stderr, and exits 1 when there is any finding.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation"
	kyaml "k8s.io/apimachinery/pkg/util/yaml"
)

func main() {
	args := os.Args[1:]
	dump := len(args) > 0 && args[0] == "-dump"
	if dump {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: kubecheck [-dump] FILE.yaml...")
		os.Exit(2)
	}
	dec, err := newDecoder()
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubecheck:", err)
		os.Exit(2)
	}
	failed := false
	for _, name := range args {
		if !checkFile(dec, name, dump, os.Stdout, os.Stderr) {
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// newDecoder returns a strict YAML decoder for the API groups the manifests
// use.
func newDecoder() (runtime.Decoder, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, batchv1.AddToScheme, appsv1.AddToScheme, rbacv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme,
		kjson.SerializerOptions{Yaml: true, Strict: true}), nil
}

// checkFile checks every document of one file and reports whether all passed.
func checkFile(dec runtime.Decoder, name string, dump bool, stdout, stderr io.Writer) bool {
	b, err := os.ReadFile(name)
	if err != nil {
		fmt.Fprintln(stderr, "kubecheck:", err)
		return false
	}
	r := kyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	ok, n := true, 0
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return false
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		n++
		obj, gvk, err := dec.Decode(doc, nil, nil)
		if err != nil {
			fmt.Fprintf(stderr, "%s: document %d: %v\n", name, n, err)
			ok = false
			continue
		}
		id := gvk.Kind + "/" + objectName(obj)
		if findings := check(obj); len(findings) > 0 {
			for _, f := range findings {
				fmt.Fprintf(stderr, "%s: %s: %s\n", name, id, f)
			}
			ok = false
			continue
		}
		if !dump {
			fmt.Fprintf(stdout, "ok %s: %s\n", name, id)
			continue
		}
		j, err := json.Marshal(obj)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %s: %v\n", name, id, err)
			return false
		}
		fmt.Fprintf(stdout, "%s\n", j)
	}
	if n == 0 {
		fmt.Fprintf(stderr, "%s: no Kubernetes object\n", name)
		return false
	}
	return ok
}

// stripComments drops comment lines, so a document of comments only counts
// as empty.
func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line...)
			out = append(out, '\n')
		}
	}
	return out
}

func objectName(obj runtime.Object) string {
	if m, ok := obj.(interface{ GetName() string }); ok {
		return m.GetName()
	}
	return ""
}

// check returns what the API server's validation would refuse in obj.
func check(obj runtime.Object) []string {
	var f findings
	switch o := obj.(type) {
	case *corev1.Namespace:
		f.add("metadata.name", validation.IsDNS1123Label(o.Name))
		f.labels("metadata.labels", o.Labels)
	case *batchv1.Job:
		f.add("metadata.name", validation.IsDNS1123Subdomain(o.Name))
		f.labels("metadata.labels", o.Labels)
		f.jobSpec("spec", &o.Spec)
	case *batchv1.CronJob:
		// The controller appends an 11-character suffix to name each Job.
		f.add("metadata.name", validation.IsDNS1123Subdomain(o.Name))
		if len(o.Name) > 52 {
			f = append(f, "metadata.name: longer than 52 characters")
		}
		f.labels("metadata.labels", o.Labels)
		if strings.TrimSpace(o.Spec.Schedule) == "" {
			f = append(f, "spec.schedule: empty")
		}
		f.jobSpec("spec.jobTemplate.spec", &o.Spec.JobTemplate.Spec)
	default:
		if m, ok := obj.(interface{ GetName() string }); ok {
			f.add("metadata.name", validation.IsDNS1123Subdomain(m.GetName()))
		}
	}
	return f
}

// findings collects messages, each prefixed with the field it is about.
type findings []string

func (f *findings) add(field string, errs []string) {
	for _, e := range errs {
		*f = append(*f, field+": "+e)
	}
}

func (f *findings) labels(field string, labels map[string]string) {
	for k, v := range labels {
		f.add(field+"["+k+"]", validation.IsQualifiedName(k))
		f.add(field+"["+k+"]", validation.IsValidLabelValue(v))
	}
}

func (f *findings) jobSpec(field string, spec *batchv1.JobSpec) {
	p := &spec.Template.Spec
	if p.RestartPolicy != corev1.RestartPolicyNever && p.RestartPolicy != corev1.RestartPolicyOnFailure {
		*f = append(*f, field+".template.spec.restartPolicy: a Job's must be Never or OnFailure")
	}
	f.labels(field+".template.metadata.labels", spec.Template.Labels)
	f.podSpec(field+".template.spec", p)
}

func (f *findings) podSpec(field string, p *corev1.PodSpec) {
	f.labels(field+".nodeSelector", p.NodeSelector)
	volumes := map[string]bool{}
	for _, v := range p.Volumes {
		f.add(field+".volumes["+v.Name+"]", validation.IsDNS1123Label(v.Name))
		volumes[v.Name] = true
	}
	if len(p.Containers) == 0 {
		*f = append(*f, field+".containers: none")
	}
	for _, c := range append(append([]corev1.Container{}, p.InitContainers...), p.Containers...) {
		cf := field + ".containers[" + c.Name + "]"
		f.add(cf+".name", validation.IsDNS1123Label(c.Name))
		if c.Image == "" {
			*f = append(*f, cf+".image: empty")
		}
		for _, e := range c.Env {
			f.add(cf+".env["+e.Name+"]", validation.IsEnvVarName(e.Name))
		}
		for _, m := range c.VolumeMounts {
			if !volumes[m.Name] {
				*f = append(*f, cf+".volumeMounts["+m.Name+"]: no volume of that name")
			}
		}
	}
}
