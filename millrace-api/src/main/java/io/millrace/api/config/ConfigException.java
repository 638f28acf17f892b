package io.millrace.api.config;

/** A job's configuration is wrong; the message names the key, the value and what is allowed. */
public final class ConfigException extends IllegalArgumentException {
  /** Creates the exception with a message meant for the user. */
  public ConfigException(String message) {
    super(message);
  }
}
