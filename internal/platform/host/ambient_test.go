package host

import "testing"

func TestAmbientFromInletSensor(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sys/class/hwmon/hwmon0/temp1_label": "Package id 0\n",
		"sys/class/hwmon/hwmon0/temp1_input": "64000\n",
		"sys/class/hwmon/hwmon3/temp2_label": "Inlet Temp\n",
		"sys/class/hwmon/hwmon3/temp2_input": "24500\n",
	})
	c, sensor, ok := Ambient(root)
	if !ok || c != 24.5 || sensor == "" {
		t.Fatalf("Ambient = %v %q %v", c, sensor, ok)
	}
}

func TestAmbientAbsent(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sys/class/hwmon/hwmon0/temp1_label": "Tctl\n",
		"sys/class/hwmon/hwmon0/temp1_input": "50000\n",
	})
	if _, _, ok := Ambient(root); ok {
		t.Fatal("a CPU sensor was taken for the inlet")
	}
}
