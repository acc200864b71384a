//! The captured logs, one list per folder of `testdata/`: each list is a macro that hands its
//! logs to [`captured_logs!`](super::captured_logs), which makes one test of each. A log added to
//! a folder but not to its list fails that folder's `every_captured_log_has_a_test`.
//!
//! A log's test is named after it, `-` and `.` written `_`; a name that does not come back by
//! turning `_` into `-` gives its file name too (`v0_9_94_retries = "v0.9.94-retries"`).

/// The captured logs of `testdata/cargo/`.
macro_rules! cargo {
    ($check:path) => {
        $crate::support::captured_logs!("cargo", $check;
            build_errors,
            build_errors_color,
            build_link_error,
            build_link_error_bfd,
            build_passing,
            build_script_openssl,
            build_script_panic,
            build_syntax_error,
            build_warnings,
            check_json,
            clippy,
            clippy_deny_warnings,
            dependency_missing,
            killed_cargo,
            killed_rustc,
            manifest_invalid,
            manifest_missing,
            test_color,
            test_compile_error,
            test_custom_harness,
            test_doctest_nocapture,
            test_exits_early,
            test_failures,
            test_leaked_output,
            test_no_fail_fast,
            test_passing,
            test_printed_results,
            test_quiet,
            test_quiet_nocapture,
            test_segv,
            test_should_panic,
            test_workspace_backtrace,
        );
    };
}
pub(crate) use cargo;

/// The captured logs of `testdata/eslint/`.
macro_rules! eslint {
    ($check:path) => {
        $crate::support::captured_logs!("eslint", $check;
            bad_rule,
            config_syntax,
            many_parse_errors,
            many_problems,
            many_problems_color,
            many_problems_json,
            many_problems_json_metadata,
            max_warnings,
            no_config,
            no_files,
            passing,
            passing_json,
            turbo_prefixed,
            v10_bad_rule,
            v10_config_syntax,
            v10_many_problems,
            v10_many_problems_color,
            v10_many_problems_json,
            v10_max_warnings,
            v10_no_config,
            v10_no_files,
            v10_passing,
            v10_passing_json,
            v10_warnings_only,
            v8_eslintrc_syntax,
            warnings_only,
        );
    };
}
pub(crate) use eslint;

/// The captured logs of `testdata/generic/`.
macro_rules! generic {
    ($check:path) => {
        $crate::support::captured_logs!("generic", $check;
            bash_command_not_found,
            gcc_clean,
            gcc_errors,
            gcc_errors_color,
            gcc_link_error,
            make_errors,
            make_keep_going,
            make_no_rule,
            mypy_clean,
            mypy_color,
            mypy_columns_context,
            mypy_errors,
            mypy_missing_file,
            mypy_pretty,
            mypy_syntax_error,
            npm_missing_script,
            npm_script_abort,
            npm_script_segfault,
            python_traceback,
            sh_command_not_found,
        );
    };
}
pub(crate) use generic;

/// The captured logs of `testdata/jest/`.
macro_rules! jest {
    ($check:path) => {
        $crate::support::captured_logs!("jest", $check;
            bad_config,
            config_syntax,
            failing,
            failing_color,
            failing_verbose,
            github_actions_and_default,
            github_actions_reporter,
            jest27_extra,
            jest27_extra_color,
            jest27_failing_verbose,
            jest27_jasmine,
            jest27_late,
            jest27_open_handles,
            jest28_extra,
            jest28_extra_no_colors,
            jest28_extra_verbose,
            jest28_failing,
            jest28_late,
            jest28_missing_env,
            jest28_open_handles,
            jest28_process_exit,
            jest29_bad_config,
            jest29_config_syntax,
            jest29_failing,
            jest29_failing_color,
            jest29_many_suites,
            jest29_no_tests,
            jest29_obsolete_snapshot,
            jest29_open_handles,
            jest29_passing,
            jest29_process_exit,
            jest29_projects,
            many_suites,
            missing_env,
            no_tests,
            obsolete_snapshot,
            open_handles,
            passing,
            passing_bullet_output,
            pnpm_two_packages,
            process_exit_workers,
            projects,
            projects_color,
            single_file,
            turbo_prefixed,
        );
    };
}
pub(crate) use jest;

/// The captured logs of `testdata/mocha/`.
macro_rules! mocha {
    ($check:path) => {
        $crate::support::captured_logs!("mocha", $check;
            bad_config,
            esm_failing,
            failing,
            failing_color,
            load_error,
            mocha10_bad_config,
            mocha10_esm_failing,
            mocha10_failing,
            mocha10_failing_color,
            mocha10_load_error,
            mocha10_no_tests,
            mocha10_passing,
            mocha10_syntax_error,
            no_tests,
            passing,
            process_exits_early,
            syntax_error,
            tap,
            turbo_prefixed,
        );
    };
}
pub(crate) use mocha;

/// The captured logs of `testdata/mypy/`.
macro_rules! mypy {
    ($check:path) => {
        $crate::support::captured_logs!("mypy", $check;
            clean,
            clean_pretty,
            config_broken_toml,
            config_plugin_missing,
            errors,
            errors_color,
            errors_columns_end,
            errors_context,
            errors_pretty,
            missing_package,
            strict,
            strict_pretty,
            syntax_error,
            unknown_flag,
        );
    };
}
pub(crate) use mypy;

/// The captured logs of `testdata/nextest/`.
macro_rules! nextest {
    ($check:path) => {
        $crate::support::captured_logs!("nextest", $check;
            build_error,
            fail_fast,
            failing,
            failing_backtrace,
            failing_color,
            final_output_no_indent,
            no_tests,
            passing,
            retries,
            v0_9_94_fail_fast = "v0.9.94-fail-fast",
            v0_9_94_failing = "v0.9.94-failing",
            v0_9_94_failing_color = "v0.9.94-failing-color",
            v0_9_94_retries = "v0.9.94-retries",
        );
    };
}
pub(crate) use nextest;

/// The captured logs of `testdata/node-test/`.
macro_rules! node_test {
    ($check:path) => {
        $crate::support::captured_logs!("node-test", $check;
            node20_failing_dot,
            node20_failing_spec,
            node20_failing_tap,
            node20_passing_spec,
            node20_suites_spec,
            node20_syntax_errors_tap,
            node22_failing_dot,
            node22_failing_spec,
            node22_failing_tap,
            node22_passing_dot,
            node22_passing_spec,
            node22_suites_spec,
            node22_syntax_errors_spec,
        );
    };
}
pub(crate) use node_test;

/// The captured logs of `testdata/tap/`.
macro_rules! tap {
    ($check:path) => {
        $crate::support::captured_logs!("tap", $check;
            node_tap_failing,
            node_tap_passing,
            tape_crash,
            tape_failing,
            tape_passing,
        );
    };
}
pub(crate) use tap;

/// The captured logs of `testdata/pyright/`.
macro_rules! pyright {
    ($check:path) => {
        $crate::support::captured_logs!("pyright", $check;
            broken_config,
            broken_pyproject,
            config_values,
            many_errors,
            many_errors_level,
            missing_path,
            no_files,
            no_files_verbose,
            passing,
            passing_stats,
            pyproject,
            strict,
            syntax_error,
            unknown_flag,
        );
    };
}
pub(crate) use pyright;

/// The captured logs of `testdata/ruff/`.
macro_rules! ruff {
    ($check:path) => {
        $crate::support::captured_logs!("ruff", $check;
            bad_rule,
            config_error,
            extra_rules,
            extra_rules_concise,
            format_check,
            format_check_concise,
            format_check_passing,
            many_problems,
            many_problems_concise,
            many_problems_json,
            many_problems_verbose,
            no_files,
            passing,
            passing_concise,
            passing_json,
            passing_verbose_json,
            syntax_error,
            syntax_error_concise,
            unknown_format,
        );
    };
}
pub(crate) use ruff;

/// The captured logs of `testdata/pytest/`.
macro_rules! pytest {
    ($check:path) => {
        $crate::support::captured_logs!("pytest", $check;
            bad_config,
            bad_conftest,
            collect_errors,
            collect_errors_continue,
            collect_errors_quiet,
            failing,
            failing_color,
            failing_deselected,
            failing_exitfirst,
            failing_quiet,
            failing_quiet_tb_line,
            failing_ra_all,
            failing_tb_line,
            failing_tb_long,
            failing_tb_native,
            failing_tb_no_ra,
            failing_tb_short,
            failing_verbose,
            internal_error,
            missing_path,
            nested_session,
            nested_session_no_capture,
            nested_session_ra_all,
            no_tests,
            passes_output_ra_all,
            passing,
            passing_quiet,
            pytest6_compat,
            pytest6_compat_collect,
            pytest6_compat_collect_only_quiet,
            pytest6_compat_color_verbose,
            pytest6_compat_quiet_tb_line,
            pytest6_compat_tb_line,
            pytest6_compat_tb_native,
            pytest7_compat,
            pytest7_compat_collect_continue,
            pytest7_compat_color,
            pytest7_compat_cov_fail_under,
            pytest7_compat_doctest,
            pytest7_compat_no_capture_verbose,
            pytest7_compat_ra_all,
            pytest7_compat_reruns_verbose,
            pytest7_compat_tb_line,
            pytest7_compat_timeout_thread,
            pytest7_compat_xdist_verbose,
            pytest8_bad_config,
            pytest8_bad_conftest,
            pytest8_collect_errors,
            pytest8_collect_errors_quiet,
            pytest8_compat_collect_only,
            pytest8_compat_collect_only_deselected,
            pytest8_compat_collect_xdist,
            pytest8_compat_color_xdist,
            pytest8_compat_cov_fail_under,
            pytest8_compat_cov_quiet,
            pytest8_compat_log_cli,
            pytest8_compat_randomly_verbose,
            pytest8_compat_reruns_verbose,
            pytest8_compat_reruns_xdist,
            pytest8_compat_sugar,
            pytest8_compat_sugar_verbose,
            pytest8_compat_timeout,
            pytest8_compat_timeout_thread,
            pytest8_compat_timeout_thread_verbose,
            pytest8_compat_xdist,
            pytest8_compat_xdist_tb_line,
            pytest8_failing,
            pytest8_failing_color,
            pytest8_failing_quiet,
            pytest8_failing_ra_all,
            pytest8_failing_tb_line,
            pytest8_failing_tb_long,
            pytest8_failing_tb_native,
            pytest8_failing_tb_no_ra,
            pytest8_failing_tb_short,
            pytest8_failing_verbose,
            pytest8_internal_error,
            pytest8_no_tests,
            pytest8_passing,
            pytest8_usage_error,
            pytest8_xdist_crash,
            subtests_unittest,
            two_sessions,
            usage_error,
            xdist_crash,
        );
    };
}
pub(crate) use pytest;

/// The captured logs of `testdata/tsc/`.
macro_rules! tsc {
    ($check:path) => {
        $crate::support::captured_logs!("tsc", $check;
            broken_tsconfig_pretty,
            build_verbose_plain,
            build_verbose_pretty,
            config_error_plain,
            config_error_pretty,
            many_errors_plain,
            many_errors_pretty,
            no_inputs_plain,
            no_inputs_pretty,
            one_error_pretty,
            passing,
            passing_pretty,
            placeholder_package,
            same_file_pretty,
            syntax_errors_plain,
            syntax_errors_pretty,
            ts39_build_verbose_pretty,
            ts39_config_error_plain,
            ts39_related_pretty,
            ts49_bundler_pretty,
            ts49_program_pretty,
            ts49_related_plain,
            ts49_related_pretty,
            ts50_build_two_pretty,
            ts50_deprecated_options_pretty,
            ts50_related_pretty,
            ts7_build_verbose_pretty,
            ts7_config_error_pretty,
            ts7_many_errors_plain,
            ts7_many_errors_pretty,
            ts7_no_inputs_pretty,
            ts7_same_file_pretty,
            unknown_flag,
        );
    };
}
pub(crate) use tsc;

/// The captured logs of `testdata/unittest/`.
macro_rules! unittest {
    ($check:path) => {
        $crate::support::captured_logs!("unittest", $check;
            py311_failing,
            py311_failing_verbose,
            py311_no_tests,
            py311_passing,
            py311_passing_verbose,
        );
    };
}
pub(crate) use unittest;

/// The captured logs of `testdata/vitest/`.
macro_rules! vitest {
    ($check:path) => {
        $crate::support::captured_logs!("vitest", $check;
            bad_config,
            each_typecheck,
            failing,
            failing_dot,
            failing_no_color,
            failing_verbose,
            long_titles,
            no_tests,
            passing,
            tap,
            tap_flat,
            turbo_prefixed,
            unhandled,
            vitest1_bad_config,
            vitest1_failing,
            vitest1_more_verbose,
            vitest2_failing_no_color,
            vitest2_more,
            vitest2_workspace,
            vitest3_bad_config,
            vitest3_failing,
            vitest3_failing_dot,
            vitest3_failing_verbose,
            vitest3_no_tests,
            vitest3_passing,
            vitest3_unhandled,
        );
    };
}
pub(crate) use vitest;

/// The captured logs of `testdata/wild/cargo/`.
macro_rules! wild_cargo {
    ($check:path) => {
        $crate::support::captured_logs!("wild/cargo", $check;
            cfgbug_test_2016_old_panic,
            datafusion_test_stderr_only,
            defiwallet_test_registry_unreachable,
            homerun_ci_test_color_e0560,
            openclaw_check_windows_e0433,
            openclaw_test_windows_passing,
            openclaw_test_windows_thread_id,
            rustatlas_clippy_pedantic_deny,
            ultros_ci_check_cut_off,
            ultros_ci_check_passing,
            ultros_clippy_build_script_panic,
            wayvr_test_linker_missing_library,
            wrap_openclaw_bom_powershell_fr_20_columns,
        );
    };
}
pub(crate) use wild_cargo;

/// The captured logs of `testdata/wild/eslint/`.
macro_rules! wild_eslint {
    ($check:path) => {
        $crate::support::captured_logs!("wild/eslint", $check;
            activityhub_react_compiler_frame_header,
            caseflow_next_lint,
            catspeak_cp437,
            chicagojs_prettier,
            coyle_yarn_workspace,
            ecpay_bun_parsing_errors,
            enc_medrec_utf16_warnings,
            enc_qbil_utf16_cp437_error,
            fanki_unix_format,
            gloomhaven_npm_debug,
            identity_svc_npm_pass,
            ipcraft_unix_one_error,
            kali_portfolio_yarn4_powershell,
            monorepo_demo_pnpm_windows,
            nodebb_stylish_many_files,
            quiz2biz_turbo_powershell,
            scenaria_warnings_only_cp850,
            stellarv3_crash_utf16_powershell,
            vue3_ts_crlf_parsing_errors,
        );
    };
}
pub(crate) use wild_eslint;

/// The captured logs of `testdata/wild/generic/`.
macro_rules! wild_generic {
    ($check:path) => {
        $crate::support::captured_logs!("wild/generic", $check;
            emission_gcc_warnings,
            rvm_make_ruby_ar_error,
            wrap_medrec_powershell_eslint_bad_option,
        );
    };
}
pub(crate) use wild_generic;

/// The captured logs of `testdata/wild/jest/`.
macro_rules! wild_jest {
    ($check:path) => {
        $crate::support::captured_logs!("wild/jest", $check;
            asset_manager_verbose_windows,
            betterinternship_only_changed_no_tests,
            chat_engine_stdout_only,
            cicd_project_gitlab_web_view_passing,
            cicd_project_gitlab_web_view_two_failing,
            codex_task_npm_vm_modules,
            electron_runner_crash_after_summary,
            enc_beelink_triage_cp437_missing_modules,
            nested_projects_jest22_yarn,
            react_power_table_jest19_cut_off,
            shopbot_powershell_console_mojibake_passing,
            splitter_module_mapper_suites,
            volontariapp_esm_failing,
            wrap_beelink_powershell_20_columns_env,
            wrap_beelink_powershell_20_columns_ts2307,
            wrap_kaliportfolio_powershell_utf16_failed,
            wrap_webbwizards_powershell_pass,
        );
    };
}
pub(crate) use wild_jest;

/// The captured logs of `testdata/wild/mocha/`.
macro_rules! wild_mocha {
    ($check:path) => {
        $crate::support::captured_logs!("wild/mocha", $check;
            bull_mocha3_spec_timeouts,
            crypto_miner_truffle_color_passing,
            cspotcode_mocha6_no_test_files,
            dehive_hardhat_failing,
            guacamole_mocha11_passing,
            lyttell_gha_paste_mojibake,
            translate_hover_spec_failing,
        );
    };
}
pub(crate) use wild_mocha;

/// The captured logs of `testdata/wild/multi/`.
macro_rules! wild_multi {
    ($check:path) => {
        $crate::support::captured_logs!("wild/multi", $check;
            beringin_gh_run_view_utf16_matrix,
            chgit_npm_check_lint_tsc,
            chgit_npm_ci_next_lint_tsc,
            indiios_prepush_tsc_vitest_shards,
            ironforge_gha_turbo_problem_matcher,
            mdtable_actions_mocha_cut_off,
            motion5_gh_log_failed_pasted_in_markdown,
            motion5_gh_log_failed_tsc_vitest,
            orgtree_gh_run_view_four_jobs,
            spaceos_just_ruff_pytest,
            youlya_verify_interleaved_passing,
            youlya_verify_passing,
            youlya_verify_vitest_failing,
        );
    };
}
pub(crate) use wild_multi;

/// The captured logs of `testdata/wild/mypy/`.
macro_rules! wild_mypy {
    ($check:path) => {
        $crate::support::captured_logs!("wild/mypy", $check;
            measurement_mypy_strict,
            townlet_mypy_error_codes,
        );
    };
}
pub(crate) use wild_mypy;

/// The captured logs of `testdata/wild/nextest/`.
macro_rules! wild_nextest {
    ($check:path) => {
        $crate::support::captured_logs!("wild/nextest", $check;
            bigole_passing,
            bigole_retries_cancelled,
            dregg_build_error,
            issue984_summary_only_leak,
        );
    };
}
pub(crate) use wild_nextest;

/// The captured logs of `testdata/wild/node-test/`.
macro_rules! wild_node_test {
    ($check:path) => {
        $crate::support::captured_logs!("wild/node-test", $check;
            aesop_windows_spec_failing,
            gml_loop_tap_nested_failing,
            ong_tank_tap_passing,
        );
    };
}
pub(crate) use wild_node_test;

/// The captured logs of `testdata/wild/tap/`.
macro_rules! wild_tap {
    ($check:path) => {
        $crate::support::captured_logs!("wild/tap", $check;
            codsen_ranges_sort_passing,
            codsen_tokenizer_buffered_passing,
        );
    };
}
pub(crate) use wild_tap;

/// The captured logs of `testdata/wild/pyright/`.
macro_rules! wild_pyright {
    ($check:path) => {
        $crate::support::captured_logs!("wild/pyright", $check;
            pypluto_many_errors,
            pyright_exec_env_verbose_pass,
        );
    };
}
pub(crate) use wild_pyright;

/// The captured logs of `testdata/wild/pytest/`.
macro_rules! wild_pytest {
    ($check:path) => {
        $crate::support::captured_logs!("wild/pytest", $check;
            arduino_yun_tox4_interrupted,
            circa_bom_verbose_cut_off,
            cognea_verbose_cut_with_failures,
            devscape_color_verbose_cut_off,
            docu_ai_utf16_wrapped_crash,
            fastapi_learning_utf16_no_tests,
            fba_bench_windows_collect_only_errors,
            gesahni_collection_error_tail,
            influenceros_utf16_setup_errors,
            library_nox_windows_passing,
            lorenzian_failures_live_log,
            ollama_dashboard_utf16_passing,
            perplexity_scraper_utf16_windows,
            pytest_docs_reportingdemo,
            pytest3_docs_getting_started_quiet,
            pytest3_docs_reportingdemo,
            rfc_scaffolding_gha_bom_passing,
            rfc_scaffolding_gha_verbose,
            scraping_emails_bom_verbose,
            streamlinevpn_quiet_warnings_passing,
            wrap_rfcscaffold_github_job_log,
            zxi_gh_run_view_collection_errors,
        );
    };
}
pub(crate) use wild_pytest;

/// The captured logs of `testdata/wild/ruff/`.
macro_rules! wild_ruff {
    ($check:path) => {
        $crate::support::captured_logs!("wild/ruff", $check;
            xtgeo_gha_excerpt,
        );
    };
}
pub(crate) use wild_ruff;

/// The captured logs of `testdata/wild/tsc/`.
macro_rules! wild_tsc {
    ($check:path) => {
        $crate::support::captured_logs!("wild/tsc", $check;
            campfire_npm_workspaces,
            campfire_npm_workspaces_pass,
            casa_cambios_easypanel_buildkit_excerpt,
            corev2_plain_many_files,
            deltax_plain_chained,
            enc_allo_utf16_errors,
            enc_allo_utf16_never_errors,
            enc_careflowai_utf8_bom,
            gpus_convex_pretty,
            gpus_ts5093_verbose_without_build,
            istock_ts6231_command_line,
            js_test_pretty_ansi,
            motion5_gh_log_failed_problem_matcher,
            obsidian_sidebars_yarn_plain,
            printalma_docker_buildkit_excerpt,
            quiz2biz_turbo_tsc_b_vite_pass,
            react_power_table_ts2_trace_resolution,
            talabat_npm_pass,
            vector_tsc_printed_help,
        );
    };
}
pub(crate) use wild_tsc;

/// The captured logs of `testdata/wild/unittest/`.
macro_rules! wild_unittest {
    ($check:path) => {
        $crate::support::captured_logs!("wild/unittest", $check;
            airbnb_py38_import_errors,
            gui_do_utf16_wrapped_errors,
            schiffe_windows_verbose_failures,
            usersgroups_windows_two_runs_ok,
        );
    };
}
pub(crate) use wild_unittest;

/// The captured logs of `testdata/wild/vitest/`.
macro_rules! wild_vitest {
    ($check:path) => {
        $crate::support::captured_logs!("wild/vitest", $check;
            audit_tools_v3_passing_custom_tail,
            bescout_v4_colors_windows,
            cineranda_v1_verbose_passing,
            derived_failing_cp1257,
            derived_long_titles_wrapped_80,
            enc_beelink_triage_cp437_failed_suites,
            enc_medrec_utf16_watch_pass,
            enc_qbil_utf16_cp437_pass,
            istock_v4_passing,
            motion5_gh_log_failed_caret_colours,
            quetz_v4_failing_colors,
            slackbot_v1_stdout_only_tree,
            ts_minecraft_failures_only_no_summary,
        );
    };
}
pub(crate) use wild_vitest;
