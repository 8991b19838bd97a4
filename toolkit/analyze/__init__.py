"""Pure analyzers: frames and arrays in, dataclasses or frames out. Never import store/, report/ or cli/."""
