"""The video library: sources, loaders, labellers, embeddings and the FAISS index."""
