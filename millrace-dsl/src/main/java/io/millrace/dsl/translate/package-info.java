/** A DSL application turned into a Millrace job through the job SPI. */
package io.millrace.dsl.translate;
