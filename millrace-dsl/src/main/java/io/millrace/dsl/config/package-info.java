/** The DSL's keys and how an application class becomes a plan. */
package io.millrace.dsl.config;
