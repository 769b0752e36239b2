//! The binary payloads the fixtures carry, base64-encoded as MCP sends them: a 1x1 red PNG
//! (tool results, prompts, the binary resource) and a WAV file with one silent sample (the
//! audio tool).

/// The MIME type of [`PNG`].
pub const PNG_MIME: &str = "image/png";

/// A 1x1 red pixel, as a PNG file in base64.
pub const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// The MIME type of [`WAV`].
pub const WAV_MIME: &str = "audio/wav";

/// A mono 16-bit WAV file at 8 kHz holding one silent sample, in base64.
pub const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";
