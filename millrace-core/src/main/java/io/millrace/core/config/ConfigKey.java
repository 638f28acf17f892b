package io.millrace.core.config;

/**
 * One documented configuration key: its pattern ({@code <id>} and {@code <name>} stand for a
 * stream id and a system name), its default ({@code null} when required or absent) and its
 * meaning. docs/configuration.md lists the same keys.
 */
public record ConfigKey(String pattern, String defaultValue, String meaning) {}
