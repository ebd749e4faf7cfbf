// Placeholder: the storage engine lands here.
