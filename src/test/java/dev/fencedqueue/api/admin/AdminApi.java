package dev.fencedqueue.api.admin;

import static io.restassured.RestAssured.given;

import io.restassured.specification.RequestSpecification;

/** Requests to the operator API with the test profile's credentials ({@code %test.fq.admin.password}). */
final class AdminApi {

    static final String USERNAME = "admin";
    static final String PASSWORD = "admin";

    private AdminApi() {
    }

    /** @return a request that sends the operator's credentials up front */
    static RequestSpecification admin() {
        return given().auth().preemptive().basic(USERNAME, PASSWORD);
    }
}
