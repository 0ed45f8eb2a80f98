package keys_test

import (
	"fmt"
	"log"
	"os"

	"github.com/everycycle/appraise/keys"
)

// Create a tenant key protected by a passphrase, unlock it, and sign.
func ExampleInit() {
	dir, err := os.MkdirTemp("", "appraise-keys-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// ScryptWorkFactor keeps the example fast; leave it 0 in real use.
	enc := keys.Encryption{Passphrase: "correct horse battery staple", ScryptWorkFactor: 10}
	info, err := keys.Init(dir, "acme", enc)
	if err != nil {
		log.Fatal(err)
	}

	signer, err := keys.LoadSigner(dir, keys.Decryption{Passphrase: "correct horse battery staple"})
	if err != nil {
		log.Fatal(err)
	}
	msg := []byte("bytes of a report")
	sig := signer.Sign(msg)

	fmt.Println(signer.Tenant(), signer.PublicKey().String() == info.PublicKey.String())
	fmt.Println(keys.Verify(info.PublicKey.Ed25519(), msg, sig))
	// Output:
	// acme true
	// true
}
