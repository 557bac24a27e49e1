package snapshot

func removeBenchFixtures() {}
