package schema

import (
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-playground/validator/v10"
)

// ErrInvalid is wrapped by every validation failure.
var ErrInvalid = errors.New("invalid report")

// validate is the package's one validator; it is safe for concurrent use.
var validate = newValidator()

var (
	identRe    = regexp.MustCompile(`^[a-z0-9][a-z0-9_.\-]*$`)
	jsonPathRe = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)*$`)
	bdfRe      = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[01][0-9a-f]\.[0-7]$`)
	softRe     = regexp.MustCompile(`^(software|adapter)-[0-9]+$`)
	hexIDRe    = regexp.MustCompile(`^[0-9a-f]{4,8}$`)
	sha256Re   = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// maxInt53 is the largest integer an RFC 8785 number, a double, holds exactly.
const maxInt53 = 1<<53 - 1

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	rules := map[string]func(string) bool{
		"ident":     identRe.MatchString,
		"jsonpath":  jsonPathRe.MatchString,
		"bdf":       bdfRe.MatchString,
		"devaddr":   func(s string) bool { return bdfRe.MatchString(s) || softRe.MatchString(s) },
		"hexid":     hexIDRe.MatchString,
		"sha256hex": sha256Re.MatchString,
		"rfc3339utc": func(s string) bool {
			t, err := time.Parse(time.RFC3339, s)
			return err == nil && strings.HasSuffix(s, "Z") && t.Format(time.RFC3339Nano) == s
		},
		"timing": func(s string) bool {
			switch TimingMethod(s) {
			case TimingGPUTimestamp, TimingQueueWallClock, TimingHostWallClock:
				return true
			}
			return false
		},
	}
	for tag, ok := range rules {
		mustRegister(v, tag, func(fl validator.FieldLevel) bool { return ok(fl.Field().String()) })
	}
	mustRegister(v, "maxint53", func(fl validator.FieldLevel) bool { return fl.Field().Uint() <= maxInt53 })
	mustRegister(v, "b64len", func(fl validator.FieldLevel) bool {
		n, err := strconv.Atoi(fl.Param())
		if err != nil {
			return false
		}
		b, err := base64.StdEncoding.Strict().DecodeString(fl.Field().String())
		return err == nil && len(b) == n
	})
	v.RegisterStructValidation(vectorCompleteness, CapabilityVector{})
	v.RegisterStructValidation(boxCompleteness, BoxPayload{})
	v.RegisterStructValidation(crossCheckWithin, CrossCheck{})
	v.RegisterStructValidation(consistencyHolds, ConsistencyCheck{})
	v.RegisterStructValidation(sharedUseHolds, SharedUse{})
	return v
}

// mustRegister panics only on a programming error that every test run catches.
func mustRegister(v *validator.Validate, tag string, fn validator.Func) {
	if err := v.RegisterValidation(tag, fn); err != nil {
		panic(fmt.Sprintf("schema: register %q: %v", tag, err))
	}
}

// Validate checks any schema value against every rule of the format; a
// failure wraps ErrInvalid.
func Validate(v any) error {
	err := validate.Struct(v)
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	msgs := make([]string, 0, len(verrs))
	for _, fe := range verrs {
		msgs = append(msgs, describe(fe))
	}
	return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(msgs, "; "))
}

// describe turns one validator failure into "path: what is wrong".
func describe(fe validator.FieldError) string {
	path := fe.Namespace()
	if _, rest, ok := strings.Cut(path, "."); ok {
		path = rest
	}
	want := fe.Tag()
	if fe.Param() != "" {
		want += "=" + fe.Param()
	}
	if fe.Tag() == "complete" {
		return fmt.Sprintf("%s: %s", path, fe.Param())
	}
	return fmt.Sprintf("%s: value %v fails rule %q", path, fe.Value(), want)
}
