// The console's calls to the operator API (/admin), whose credentials the browser already holds (HTTP Basic), and the
// messages an operator reads about them: what an action did, or what went wrong, in plain words.

const $ = (id) => document.getElementById(id);

/**
 * Calls the operator API.
 *
 * @param {string} path the path, e.g. "/admin/queues"
 * @param {{method?: string, body?: object}} options the method (GET by default) and a body sent as JSON
 * @returns {Promise<any>} the parsed JSON body; rejects with an Error worded for a person
 */
export async function api(path, options = {}) {
    const init = { credentials: "same-origin", headers: { Accept: "application/json" }, ...options };
    if (options.body !== undefined) {
        init.headers = { ...init.headers, "Content-Type": "application/json" };
        init.body = JSON.stringify(options.body);
    }
    let response;
    try {
        response = await fetch(path, init);
    } catch (e) {
        throw new Error("The service cannot be reached. Check that it is running, then try again.");
    }
    const text = await response.text();
    const body = text ? safeJson(text) : null;
    if (response.ok) {
        return body;
    }
    const error = new Error(plainWords(response.status, body));
    error.status = response.status;
    throw error;
}

/** @returns {any} the parsed JSON, or null when it is not JSON */
export function safeJson(text) {
    try {
        return JSON.parse(text);
    } catch (e) {
        return null;
    }
}

function plainWords(status, body) {
    const detail = body && body.message ? " (" + body.message + ")" : "";
    switch (status) {
        case 401: return "Your operator credentials were not accepted. Reload the page and sign in again.";
        case 403: return "Your user may not operate queues: it lacks the admin role.";
        case 404: return "It does not exist, or no longer: it may have been removed" + detail + ".";
        case 409: return "Not possible in the job's current state" + detail + ".";
        case 400: return "The value was refused" + detail + ".";
        case 503: return "The service cannot reach Redis or the database right now; try again in a moment" + detail + ".";
        default: return "Something went wrong on the server (HTTP " + status + ")" + detail + ".";
    }
}

export function showError(error) {
    $("error").textContent = error.message;
    $("error").hidden = false;
    $("message").hidden = true;
}

export function showMessage(text) {
    $("message").textContent = text;
    $("message").hidden = false;
    $("error").hidden = true;
}

/** Hides the last message and error (a new view was opened). */
export function clearMessages() {
    $("message").hidden = true;
    $("error").hidden = true;
}

/**
 * Makes the function that runs an operator's action: asks for confirmation first when a question is given, says what
 * the action did (or why it failed), then refreshes the view.
 *
 * @param {() => Promise<void>} refresh refreshes what the console shows
 * @returns {(question: string|null, action: () => Promise<any>, done: (result: any) => string) => Promise<void>}
 */
export function actions(refresh) {
    return async (question, action, done) => {
        if (question && !window.confirm(question)) {
            return;
        }
        try {
            const result = await action();
            showMessage(done(result));
        } catch (e) {
            showError(e);
        }
        await refresh();
    };
}
