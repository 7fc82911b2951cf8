"""What the tests share and are not tests: helpers, fixtures' building blocks, the worlds they
run in. Test modules import from here, never from one another."""
